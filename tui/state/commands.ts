/**
 * The slash commands, in one table that also writes `/help`.
 *
 * @module
 */
import {
  contextPercent,
  contextUnknown,
  formatBytes,
  formatTokens,
  formatUsd,
  mcpServerText,
} from "./format.ts";
import {
  type ClientState,
  type CustomCommand,
  type Effect,
  REPLY_TIMEOUT_MS,
  requestId,
} from "./model.ts";
import { compactNow, configureModel, LISTING_MODELS, newSession, openPicker } from "./sessions.ts";
import { notice } from "./transcript.ts";
import { openRewind, startUndo } from "./rewind.ts";
import { togglePlan } from "./modes.ts";

/** One slash command. */
export interface SlashCommand {
  /** The name typed, with its slash: `/clear`. */
  name: string;
  /** Other names that run it. */
  aliases?: readonly string[];
  /** What it does, shown in `/help` after the name; omitted where the name says it. */
  help?: string;
  /** The words it takes, for `/help` (`[instructions]`); omitted: it takes none. */
  args?: string;
  /** Runs it; `args` is the rest of the line, trimmed ("" when none). */
  run(state: ClientState, args: string): Effect[];
}

function statusText(state: ClientState): string {
  const s = state.session;
  const ctx = state.contextTokens ?? 0;
  const max = s?.contextMaxTokens;
  return [
    `Server: ${state.serverLabel} (${state.connection})`,
    `Session: ${s?.id ?? "none"}`,
    `Model: ${state.model}`,
    `Workspace: ${state.cwd}`,
    contextUnknown(state)
      ? `Context: not measured since the session was resumed (the next turn measures it)${
        max ? `; the window is ${formatTokens(max)} tokens` : ""
      }`
      : `Context: ${formatTokens(ctx)}${
        max ? ` of ${formatTokens(max)} tokens (${contextPercent(ctx, max)}%)` : " tokens"
      }`,
    s?.costUsd !== undefined
      ? `Cost: ${formatUsd(s.costUsd)} this session (by the pricing setting)`
      : "Cost: not known (no pricing for this model in the configuration)",
    `Turn: ${state.turn ? state.turn.phase : "idle"}`,
    `Transcript: ${plural(state.transcript.length, "item")}, ${
      formatBytes(state.transcriptBytes)
    } in memory` +
    (s
      ? ` (limits ${plural(s.maxTranscriptItems, "item")}, ${formatBytes(s.maxTranscriptBytes)})`
      : ""),
    `Prompt history: ${plural(state.history.entries.length, "entry", "entries")}`,
    `Approval policy: ${state.approvalPolicy} (/rules lists the approval rules)`,
    ...sandboxText(state),
    ...(s?.hooks && s.hooks.length > 0 ? [`Hooks: ${hooksText(s.hooks)}`] : []),
    ...(s && s.mcpServers.length > 0
      ? [`MCP servers (at session start): ${s.mcpServers.map(mcpServerText).join(" · ")}`]
      : []),
  ].join("\n");
}

/** The hooks as `/status` lists them: `PreToolUse Bash (1) · Stop (2)`. */
function hooksText(groups: NonNullable<NonNullable<ClientState["session"]>["hooks"]>): string {
  return groups.map((g) =>
    `${g.event}${g.matcher !== undefined && g.matcher !== "" ? ` ${g.matcher}` : ""} (${
      plural(g.commands, "command")
    })`
  ).join(" · ");
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What each active sandbox mode lets a `bash` call do (see docs/sandbox.md). */
const SANDBOX_DETAILS: Record<"workspace-write" | "read-only", string> = {
  "workspace-write": "bash writes only in the workspace (and sandbox_writable_roots), never " +
    ".git/hooks or .git/config; /tmp is private; ~/.ssh, ~/.aws and the like are hidden; " +
    "no process of scv is visible",
  "read-only": "bash writes nowhere but a private /tmp; ~/.ssh, ~/.aws and the like are " +
    "hidden; no process of scv is visible",
};

function sandboxText(state: ClientState): string[] {
  const sb = state.session?.sandbox;
  if (!sb) return [];
  if (sb.mode === "off") return [`Sandbox: off (${sb.reason}); approval is the only guard`];
  return [
    `Sandbox: ${sb.mode}, network ${sb.network ? "allowed" : "blocked"}` +
    (sb.reason ? ` (${sb.reason})` : ""),
    `  ${SANDBOX_DETAILS[sb.mode]}`,
  ];
}

function mcpText(state: ClientState): string {
  const servers = state.session?.mcpServers ?? [];
  if (servers.length === 0) {
    return 'No MCP servers are configured ("mcp_servers" in the config adds them)';
  }
  return [
    "MCP servers, as they stood when the session started:",
    ...servers.map((m) => `  ${mcpServerText(m)}`),
    "Their tools are offered to the model as mcp__<server>__<tool>.",
  ].join("\n");
}

function clear(state: ClientState): Effect[] {
  if (state.turn) {
    notice(state, "error", "Cannot clear while a turn is running; press Esc to cancel it");
    return [];
  }
  if (!state.session) {
    notice(state, "error", "Not connected to a session yet");
    return [];
  }
  const id = requestId(state);
  state.clearing = id;
  return [{
    kind: "send",
    message: { type: "session.clear", request_id: id, session_id: state.session.id },
  }, { kind: "expect-reply", request: "session.clear", ms: REPLY_TIMEOUT_MS }];
}

/** The keys, for `/help`, below the generated list of commands. */
export const KEYS_HELP = [
  "Keys: Enter send · Shift+Enter, Alt+Enter or Ctrl+J newline · Up/Down row, then history",
  "      Ctrl+A/E or Home/End line start/end · Alt+B/F or Ctrl+←/→ word · Ctrl+U/K/W delete",
  "      Ctrl+R search history · Tab completes a /command or an @path (its file is sent)",
  "      Ctrl+O shows the model's whole reasoning (while it streams, only its last line shows)",
  "      Esc or Ctrl+C cancel the turn · Ctrl+C twice or Ctrl+D on an empty prompt quit",
  "      Esc twice on an empty prompt: rewind to before a turn (files, conversation or both)",
  "      Shift+Tab: the next approval policy (on-risk, auto, plan, always)",
  "Approvals: y approve · n deny · a always allow (this session) · ←/→ and Enter choose",
];

/** Every slash command, in the order `/help` lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "/help",
    help: "this list",
    run(state) {
      notice(state, "info", helpText(state));
      return [];
    },
  },
  { name: "/new", help: "new session", run: newSession },
  { name: "/resume", help: "pick a recorded session", run: (state) => openPicker(state, false) },
  { name: "/clear", help: "new conversation", run: clear },
  {
    name: "/undo",
    help: "put back the files the last changing turn changed (asks first)",
    run: startUndo,
  },
  {
    name: "/rewind",
    help: "pick a turn; rewind its files, the conversation or both (also Esc Esc)",
    run: openRewind,
  },
  {
    name: "/compact",
    args: "[instructions]",
    help: "shorten the context now",
    run: compactNow,
  },
  {
    name: "/model",
    args: "[NAME]",
    help: "list models, or set one",
    run: (state, args) => {
      if (args !== "") return configureModel(state, args);
      // The server asks its provider (models.list); that may take a few seconds (5 s at most).
      state.hint = LISTING_MODELS;
      return [{ kind: "list-models" }];
    },
  },
  {
    name: "/plan",
    help: "plan mode on or off",
    run: (state) => togglePlan(state),
  },
  {
    name: "/status",
    help: "session, model, context, sandbox",
    run(state) {
      notice(state, "info", statusText(state));
      return [];
    },
  },
  {
    name: "/mcp",
    help: "MCP servers",
    run(state) {
      notice(state, "info", mcpText(state));
      return [];
    },
  },
  {
    name: "/rules",
    help: "the approval rules in force",
    run(state) {
      if (!state.session) {
        notice(state, "error", "Not connected to a session yet");
        return [];
      }
      return [{
        kind: "send",
        message: { type: "rules.list", request_id: requestId(state), session_id: state.session.id },
      }];
    },
  },
  {
    name: "/quit",
    aliases: ["/exit"],
    help: "exit (also /exit)",
    run: () => [{ kind: "exit", status: 0 }],
  },
];

/** The built-in command named `name` (with its slash, any case), if there is one. */
export function findCommand(name: string): SlashCommand | undefined {
  const n = name.toLowerCase();
  return SLASH_COMMANDS.find((c) => c.name === n || (c.aliases ?? []).includes(n));
}

/**
 * Tab while the composer holds only a `/name` being typed (the cursor at its end): completes
 * it among the built-in and custom commands, listing them in the hint when several match.
 * Returns false when the composer holds something else, for the `@path` completion to try.
 */
export function completeCommand(state: ClientState): boolean {
  const b = state.composer;
  if (b.cursor !== b.text.length || !/^\/[\w-]*$/.test(b.text)) return false;
  const typed = b.text.toLowerCase();
  const names = [
    ...SLASH_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]),
    ...state.customCommands.map((c) => `/${c.name}`),
  ];
  const found = [...new Set(names.filter((n) => n.toLowerCase().startsWith(typed)))].sort();
  if (found.length === 0) {
    state.hint = `No command starts with ${b.text}; /help lists them`;
    state.completionHint = state.hint;
    return true;
  }
  let text = found[0]!;
  for (const n of found) {
    while (!n.toLowerCase().startsWith(text.toLowerCase())) text = text.slice(0, -1);
  }
  if (found.length === 1) text += " ";
  else if (text.length < b.text.length) text = b.text;
  state.composer = { text, cursor: text.length };
  state.hint = found.length === 1 ? undefined : found.slice(0, 12).join("  ");
  state.completionHint = state.hint;
  return true;
}

/** The custom command named `name` (with its slash, any case), if no built-in has the name. */
export function findCustomCommand(
  state: ClientState,
  name: string,
): CustomCommand | undefined {
  if (findCommand(name)) return undefined;
  const n = name.toLowerCase().slice(1);
  return state.customCommands.find((c) => c.name.toLowerCase() === n);
}

/** Help text of the built-ins: the commands from {@link SLASH_COMMANDS}, then the keys. */
export const HELP_TEXT = [
  ...SLASH_COMMANDS.map((c, i) => {
    const name = c.name + (c.args ? ` ${c.args}` : "");
    // Two spaces at least between the columns, so a narrow screen can tell them apart.
    return (i === 0 ? "Commands: " : "          ") + name.padEnd(23) + "  " + (c.help ?? "");
  }),
  ...KEYS_HELP,
].join("\n");

/** Most custom commands listed by `/help`; the rest are counted. */
const MAX_HELP_CUSTOM = 30;

/** `/help`: the built-ins, the keys, and the custom commands found. */
export function helpText(state: ClientState): string {
  const custom = state.customCommands;
  if (custom.length === 0) return HELP_TEXT;
  const rows = custom.slice(0, MAX_HELP_CUSTOM).map((c, i) =>
    (i === 0 ? "Custom:   " : "          ") + `/${c.name}`.padEnd(23) + "  " + c.description
  );
  if (custom.length > MAX_HELP_CUSTOM) {
    rows.push(`          … ${custom.length - MAX_HELP_CUSTOM} more`);
  }
  return [HELP_TEXT, ...rows].join("\n");
}

/** Runs the slash command that `line` names, or says that there is none such. */
export function runCommand(state: ClientState, line: string): Effect[] {
  const trimmed = line.trim();
  const name = trimmed.split(/\s+/)[0]!.toLowerCase();
  const command = findCommand(name);
  if (!command) {
    notice(state, "error", `Unknown command ${name}; type /help for the list`);
    return [];
  }
  return command.run(state, trimmed.slice(name.length).trim());
}
