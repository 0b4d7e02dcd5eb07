/**
 * Parses scv's command line (commander) into what to run. Printing help, the version and usage
 * errors happens here; everything else is dispatched by `main.ts`.
 *
 * @module
 */
import { SCV_VERSION } from "../protocol/constants.ts";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { APPROVAL_POLICIES, type ConfigFlags } from "../server/config.ts";

/** Options of `scv exec`. */
export interface ExecOptions {
  flags: ConfigFlags;
  prompt: string;
  json: boolean;
  cwd: string | undefined;
  /** A recorded session to add the turn to: its id, or `"last"` (`--continue`). */
  resume?: string | undefined;
  /** scv 0.3: image files to attach to the prompt (`--image FILE`, repeatable), in order. */
  images?: string[];
}

/** Options of `scv sandbox check`. */
export interface SandboxCheckOptions {
  flags: ConfigFlags;
  /** The workspace to check (default: the current directory). */
  cwd: string | undefined;
}

/** Options of `scv rules check`. */
export interface RulesCheckOptions {
  flags: ConfigFlags;
  /** The workspace whose rules file counts; undefined: the current directory. */
  cwd: string | undefined;
  /** One argument: a command line; several: the words of one command. */
  words: string[];
}

/** Options of `scv sessions`. */
export interface SessionsOptions {
  flags: ConfigFlags;
  json: boolean;
  /** Only this directory's sessions; undefined: every directory. */
  cwd: string | undefined;
  limit: number;
}

/**
 * Which session the TUI opens: a new one, a recorded one (`--resume ID`, or `"last"` for
 * `--continue`), or the picker (`--resume` without an ID).
 */
export type TuiSessionChoice =
  | { kind: "new" }
  | { kind: "resume"; resume: string }
  | { kind: "pick" };

/** Options of the TUI. */
export interface TuiOptions {
  flags: ConfigFlags;
  cwd: string | undefined;
  serverCommand: string | undefined;
  session: TuiSessionChoice;
}

/** What the command line asks for. */
export type ParsedCommand =
  | { kind: "exit"; status: number }
  | { kind: "server"; flags: ConfigFlags }
  | { kind: "acp"; flags: ConfigFlags }
  | { kind: "exec"; options: ExecOptions }
  | { kind: "sessions"; options: SessionsOptions }
  | { kind: "sandbox-check"; options: SandboxCheckOptions }
  | { kind: "protocol-schema" }
  | { kind: "rules-check"; options: RulesCheckOptions }
  | { kind: "tui"; options: TuiOptions };

interface CommonOpts {
  config?: string;
  model?: string;
  approvalPolicy?: string;
  cwd?: string;
}

/** A path option must name something: `--cwd ""` is a mistake, not the current directory. */
function nonEmptyPath(value: string): string {
  if (value === "") throw new InvalidArgumentError("an empty path names nothing.");
  return value;
}

/** `--limit`: a whole number from 1 to 1000. */
function sessionLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > 1000) {
    throw new InvalidArgumentError("it must be a whole number from 1 to 1000.");
  }
  return n;
}

/** The workspace as an absolute path, so the TUI and exec send `session.start` a valid cwd. */
function workspacePath(value: string): string {
  nonEmptyPath(value);
  return value.startsWith("/") ? value : `${Deno.cwd()}/${value}`;
}

function common(cmd: Command, withCwd: boolean): Command {
  cmd
    .option(
      "--config <path>",
      "a JSONC config file (wins over the user and SCV_CONFIG files)",
      nonEmptyPath,
    )
    .option("--model <name>", "model name sent to the provider (wins over every config source)")
    .addOption(
      new Option(
        "--approval-policy <policy>",
        "which tool calls ask for approval (auto: workspace reads and writes and sandboxed " +
          "bash run, the rest asks)",
      ).choices(APPROVAL_POLICIES),
    );
  if (withCwd) {
    cmd.option(
      "--cwd <dir>",
      "workspace directory (default: the current directory)",
      workspacePath,
    );
  }
  return cmd;
}

function flagsOf(o: CommonOpts): ConfigFlags {
  return { config: o.config, model: o.model, approvalPolicy: o.approvalPolicy };
}

/**
 * Parses `args` (without the program name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCommandLine } from "./command_line.ts";
 * const r = await parseCommandLine(["server", "--model", "m"]);
 * assert(r.kind === "server" && r.flags.model === "m");
 * ```
 */
export async function parseCommandLine(args: string[]): Promise<ParsedCommand> {
  let result: ParsedCommand | undefined;
  const program = new Command("scv")
    .description(
      "scv: a terminal coding agent. With no command it opens the interactive TUI. " +
        "Configuration: ~/.config/scv/config.jsonc, SCV_CONFIG, --config, env, flags (later wins).",
    )
    .version(`scv ${SCV_VERSION}`, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => Deno.stdout.writeSync(new TextEncoder().encode(s)),
      writeErr: (s) => Deno.stderr.writeSync(new TextEncoder().encode(s)),
    })
    .showHelpAfterError("(run scv --help for usage)")
    .addHelpText(
      "after",
      `
Environment:
  OPENAI_API_KEY    the provider's API key (the variable is named by "api_key_env");
                    without it no Authorization header is sent (local servers)
  OPENAI_BASE_URL   an OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
                    the same for "provider": "anthropic"
  SCV_MODEL         the model name
  SCV_CONFIG        a JSONC config file, read after ~/.config/scv/config.jsonc

Examples:
  scv                                   open the TUI in the current directory
  scv -c                                continue the newest session recorded here
  scv --resume                          pick a recorded session of this directory
  scv exec "summarise README.md"        one turn, answer on stdout
  scv server --config scv.jsonc         Peon protocol on stdin/stdout
  scv acp                               an ACP agent for editors (Zed and others) on stdin/stdout
  scv rules check -- git push --force   what the approval rules decide for a command
`,
    );

  common(program.command("tui", { isDefault: true }), true)
    .description("the interactive TUI (default): a Peon client of an in-process server")
    .option(
      "--server-command <cmd>",
      "spawn this Peon server command instead of the in-process one",
    )
    .addOption(
      new Option("-c, --continue", "reopen the newest session recorded for this directory")
        .conflicts("resume"),
    )
    .option(
      "--resume [id]",
      "reopen the recorded session ID; without ID, pick one of this directory's sessions",
      (value: string) => {
        if (value.trim() === "") throw new InvalidArgumentError("a session id cannot be empty.");
        return value;
      },
    )
    .action(
      (o: CommonOpts & { serverCommand?: string; continue?: boolean; resume?: string | true }) => {
        const session: TuiSessionChoice = o.continue
          ? { kind: "resume", resume: "last" }
          : o.resume === true
          ? { kind: "pick" }
          : typeof o.resume === "string"
          ? { kind: "resume", resume: o.resume }
          : { kind: "new" };
        result = {
          kind: "tui",
          options: { flags: flagsOf(o), cwd: o.cwd, serverCommand: o.serverCommand, session },
        };
      },
    );

  common(program.command("server"), false)
    .description(
      "headless server: Peon protocol (NDJSON) on stdin/stdout, diagnostics on stderr. " +
        "Exit 0 after EOF or SIGINT/SIGTERM/SIGHUP, 1 when stdout broke or stayed blocked, 2 after a " +
        "protocol version mismatch or a configuration error.",
    )
    .action((o: CommonOpts) => {
      result = { kind: "server", flags: flagsOf(o) };
    });

  common(program.command("acp"), false)
    .description(
      "an ACP v1 agent (Agent Client Protocol, for editors such as Zed) on stdin/stdout, " +
        "diagnostics on stderr; the same configuration, tools and approvals as the server. " +
        "Exit 0 after EOF or SIGINT/SIGTERM, 2 after a configuration error.",
    )
    .action((o: CommonOpts) => {
      result = { kind: "acp", flags: flagsOf(o) };
    });

  const exec = common(program.command("exec"), true);
  exec
    .description(
      "run one turn without a terminal: the assistant's text streams to stdout as it " +
        "arrives, tool activity and failures go to stderr. " +
        'PROMPT "-" reads the prompt from stdin. Exit 0 completed, 1 failed, 130 cancelled.',
    )
    .argument("<prompt>", 'the prompt, or "-" to read it from stdin')
    .option("--json", "print the Peon events as NDJSON on stdout instead of text")
    .option("-c, --continue", "add the turn to the newest session recorded for this directory")
    .option("--session <id>", "add the turn to recorded session ID (see scv sessions)")
    .option(
      "--image <file>",
      "attach an image (PNG, JPEG, GIF, WebP) to the prompt; repeat for more, at most 8",
      (file: string, all: string[]) => [...all, nonEmptyPath(file)],
      [] as string[],
    )
    .action(
      (
        prompt: string,
        o: CommonOpts & { json?: boolean; continue?: boolean; session?: string; image?: string[] },
      ) => {
        if (o.continue && o.session !== undefined) {
          exec.error(
            "error: --continue and --session both name the session to resume; give one of them",
          );
        }
        const resume = o.continue ? "last" : o.session;
        result = {
          kind: "exec",
          options: {
            flags: flagsOf(o),
            prompt,
            json: o.json === true,
            cwd: o.cwd,
            ...(resume !== undefined ? { resume } : {}),
            ...(o.image?.length ? { images: o.image } : {}),
          },
        };
      },
    );

  program.command("sessions")
    .option(
      "--config <path>",
      "a JSONC config file (wins over the user and SCV_CONFIG files)",
      nonEmptyPath,
    )
    .option(
      "--cwd <dir>",
      "only the sessions of this directory (default: every directory)",
      workspacePath,
    )
    .description(
      "list recorded sessions, newest first: id, last update, turns, directory and title " +
        "(--cwd for one directory's); --json prints one JSON object per line",
    )
    .option("--json", "print the sessions as NDJSON")
    .option("--limit <n>", "at most this many sessions (default 50, at most 1000)", sessionLimit)
    .action((o: CommonOpts & { json?: boolean; limit?: number }) => {
      result = {
        kind: "sessions",
        options: { flags: flagsOf(o), json: o.json === true, cwd: o.cwd, limit: o.limit ?? 50 },
      };
    });

  const sandbox = program.command("sandbox").description("the OS sandbox bash runs in");
  common(sandbox.command("check"), true)
    .description(
      "print whether the OS sandbox works here, in which mode, and what it denies (checked by " +
        "running commands in it); exit 0 when it works, 1 when bash would run unsandboxed or fail",
    )
    .action((o: CommonOpts) => {
      result = { kind: "sandbox-check", options: { flags: flagsOf(o), cwd: o.cwd } };
    });

  const protocol = program.command("protocol").description("the Peon wire protocol");
  protocol.command("schema")
    .description(
      "print the JSON Schema (draft 2020-12) of every client message and server event, " +
        "generated from the protocol's zod schemas",
    )
    .action(() => {
      result = { kind: "protocol-schema" };
    });

  const rules = program.command("rules").description("the approval rules (see the README)");
  common(rules.command("check"), true)
    .argument("<command...>", "after --: a command line as one argument, or a command's words")
    .description(
      "print what the approval rules decide for a bash command and the rule that decides it " +
        "(the user's rules file, then the workspace's, then the built-in rules)",
    )
    .action((words: string[], o: CommonOpts) => {
      result = { kind: "rules-check", options: { flags: flagsOf(o), cwd: o.cwd, words } };
    });

  // The TUI is the default command, so commander would take a mistyped command for a TUI
  // argument; name it as what it is instead.
  const first = args[0];
  if (
    first !== undefined && !first.startsWith("-") &&
    !["tui", "server", "exec", "acp", "sessions", "sandbox", "rules", "protocol", "help"]
      .includes(first)
  ) {
    Deno.stderr.writeSync(
      new TextEncoder().encode(
        `scv: unknown command "${first}"; the commands are tui, server, exec, acp, sessions, ` +
          `sandbox, rules and protocol ` +
          `(run scv --help)\n`,
      ),
    );
    return { kind: "exit", status: 2 };
  }
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      const ok = e.code === "commander.helpDisplayed" || e.code === "commander.version" ||
        e.code === "commander.help";
      return { kind: "exit", status: ok ? 0 : 2 };
    }
    throw e;
  }
  return result ?? { kind: "exit", status: 2 };
}
