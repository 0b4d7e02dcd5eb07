/**
 * Snapshot screens of the daily-work features: the session picker, a resumed transcript, the
 * history search, the sandbox and MCP servers in the status line, `/status` and `/mcp`, and the
 * approval box with its "always" choice.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { ServerEvent } from "../../protocol/schema.ts";
import {
  createRenderCache,
  pickerRows,
  renderItem,
  renderLive,
  type View,
} from "../../tui/render.ts";
import {
  applyEvent,
  applyKey,
  type ClientState,
  createState,
  drainOutbox,
  helpText,
} from "../../tui/state/mod.ts";
import { displayWidth, makeStyle } from "../../tui/text.ts";
import { enter, key, readyState, sent, sessionStarted, typeText } from "./fixtures.ts";
import { assertSnapshot } from "./snapshot.ts";

const view: View = { width: 72, height: 20, style: makeStyle(false), home: "/work" };

/** The finished items waiting for scrollback, rendered as they are written. */
const scrollback = (s: ClientState) => drainOutbox(s).flatMap((i) => renderItem(i, view));

type Started = Extract<ServerEvent, { type: "session.started" }>;

function started(extra: Partial<Started>): Started {
  return { ...(sessionStarted() as Started), ...extra };
}

function pickerState(): ClientState {
  const s = readyState();
  const [list] = enter(s, "/resume");
  const at = (h: string) => `2026-11-30T${h}:00.000Z`;
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [
      {
        session_id: "s9",
        cwd: "/work/project",
        model: "m",
        created_at: at("10:00"),
        updated_at: at("11:42"),
        turns: 12,
        title: "Add the session picker to the TUI",
      },
      {
        session_id: "s8",
        cwd: "/work/project",
        model: "m",
        created_at: at("08:00"),
        updated_at: at("09:05"),
        turns: 1,
        title: "fix the failing lexer test",
      },
      {
        session_id: "s7",
        cwd: "/work/project",
        model: "m",
        created_at: at("07:00"),
        updated_at: at("07:30"),
        turns: 3,
        title: "",
      },
    ],
  });
  drainOutbox(s);
  return s;
}

Deno.test("the session picker shows date, turns and title with the highlighted row", async () => {
  const s = pickerState();
  applyKey(s, key("down"));
  await assertSnapshot("picker", renderLive(s, view, createRenderCache()));
});

Deno.test("the session picker filtered by typed text shows the matches and their count", async () => {
  const s = pickerState();
  typeText(s, "lexer");
  const lines = renderLive(s, view, createRenderCache());
  await assertSnapshot("picker_filtered", lines);
  assert(lines.some((l) => l.includes("1 of 3 sessions")));
});

Deno.test("a resumed session's earlier transcript is written like live items", async () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
  });
  const [ask] = sent(applyEvent(s, started({ session_id: "old", resumed: true, last_seq: 9 })));
  const env = { request_id: ask!.request_id!, session_id: "old" };
  const items: ServerEvent[] = [
    {
      type: "history.item",
      ...env,
      role: "user",
      content: "Earlier work, summarised.",
      compaction: true,
    },
    { type: "history.item", ...env, role: "user", content: "Why does the lexer fail?" },
    {
      type: "history.item",
      ...env,
      role: "tool",
      content: "error: unexpected token",
      name: "bash",
      summary: "Run shell command: deno test",
      success: false,
    },
    {
      type: "history.item",
      ...env,
      role: "assistant",
      content: "The lexer **drops** the last token.",
      truncated: true,
    },
    { type: "history.end", ...env, items: 4, omitted: 0 },
  ];
  for (const e of items) applyEvent(s, e);
  await assertSnapshot("resumed_transcript", scrollback(s));
});

Deno.test("a Ctrl+R search shows the match in the composer and the query above it", async () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
    historyEntries: ["run the tests", "explain the lexer"],
  });
  applyEvent(s, sessionStarted());
  applyKey(s, key("r", { ctrl: true }));
  typeText(s, "tests");
  await assertSnapshot("history_search", renderLive(s, view, createRenderCache()));
});

Deno.test("the status line shows the sandbox mode; MCP servers get one line at startup", async () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
  });
  applyEvent(
    s,
    started({
      sandbox: { mode: "workspace-write", network: false },
      mcp_servers: [
        { name: "docs", status: "ready", tools: 4 },
        { name: "db", status: "failed", tools: 0, error: "exited with status 1" },
      ],
    }),
  );
  await assertSnapshot("sandbox_and_mcp", [
    ...scrollback(s),
    ...renderLive(s, view, createRenderCache()),
  ]);
});

Deno.test("/status gives the sandbox's details and /mcp lists the servers", async () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
    approvalPolicy: "auto",
  });
  applyEvent(
    s,
    started({
      sandbox: { mode: "off", reason: "bwrap is not installed" },
      mcp_servers: [{ name: "docs", status: "ready", tools: 4 }],
    }),
  );
  drainOutbox(s);
  enter(s, "/status");
  enter(s, "/mcp");
  await assertSnapshot("status_and_mcp", scrollback(s));
});

Deno.test("/help lists every built-in command, the keys and the custom commands", async () => {
  const s = createState({
    model: "m",
    cwd: "/w",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
    customCommands: [{
      name: "review",
      description: "Review the staged change",
      body: "x",
      source: "/c/review.md",
    }],
  });
  await assertSnapshot(
    "help",
    renderItem({ kind: "notice", level: "info", text: helpText(s) }, view),
  );
});

/** A state awaiting approval of a bash call in `cwd`, sandboxed or not. */
function awaitingBash(cwd: string, sandboxed: boolean): ClientState {
  const s = readyState();
  const [start] = enter(s, "go");
  const env = { request_id: start!.request_id!, session_id: "s1", turn_id: "t1" };
  applyEvent(s, { type: "turn.started", ...env, seq: 1 });
  applyEvent(s, {
    type: "tool.proposed",
    ...env,
    seq: 2,
    call_id: "c1",
    name: "bash",
    arguments: { command: "make" },
  });
  applyEvent(s, {
    type: "approval.requested",
    ...env,
    seq: 3,
    approval_id: "a1",
    call_id: "c1",
    name: "bash",
    risk: "process",
    cwd,
    summary: "Run shell command: make",
    sandboxed,
  });
  return s;
}

Deno.test("an approval of a sandboxed call says so beside the directory", async () => {
  const s = awaitingBash("/work/project", true);
  await assertSnapshot("approval_sandboxed", renderLive(s, view, createRenderCache()));
});

Deno.test("in an 8-row window the session picker still shows the highlighted session", () => {
  const s = pickerState();
  applyKey(s, key("down"));
  const short = { ...view, height: 8 };
  const lines = renderLive(s, short, createRenderCache());
  assert(lines.length <= short.height - 1, lines.join("\n"));
  assert(lines.some((l) => l.includes("› 2026-11-30 09:05")), lines.join("\n"));
  assert(lines.some((l) => l.includes("3 of 3 sessions")), lines.join("\n"));
});

Deno.test("a picker given three rows keeps the highlighted session and names the filter in its count", () => {
  const s = pickerState();
  typeText(s, "lexer");
  const rows = pickerRows(s, 72, makeStyle(false), 3);
  assertEquals(rows.length, 3);
  assert(rows[1]!.includes("fix the failing lexer test"), rows.join("\n"));
  assert(rows[2]!.includes("filter: lexer") && rows[2]!.includes("1 of 3"), rows.join("\n"));
});

Deno.test("a narrow approval shortens the directory, never the word sandboxed", () => {
  for (const sandboxed of [true, false]) {
    const s = awaitingBash("/home/someone/src/a-rather-long-project-name", sandboxed);
    const lines = renderLive(s, { ...view, width: 30 }, createRenderCache());
    const where = lines.find((l) => l.startsWith("│ in "));
    const word = sandboxed ? "· sandboxed" : "· not sandboxed";
    assert(where?.endsWith(word) && where.includes("…"), lines.join("\n"));
    assert(displayWidth(where!) <= 30, where);
  }
});
