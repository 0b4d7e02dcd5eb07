import { assert, assertEquals } from "../support/assert.ts";
import {
  createRenderCache,
  layoutComposer,
  renderItem,
  renderLive,
  statusLine,
  type View,
} from "../../tui/render.ts";
import { applyEvent, applyKey, drainOutbox, finishItem, HELP_TEXT } from "../../tui/state/mod.ts";
import { LiveRegion } from "../../tui/terminal.ts";
import { displayWidth, makeStyle } from "../../tui/text.ts";
import { applyAll, readyState, TurnScript } from "./fixtures.ts";
import { assertSnapshot } from "./snapshot.ts";
import type { ServerEvent } from "../../protocol/types.ts";
import stripAnsi from "strip-ansi";
import { editFileTool } from "../../server/tools/edit_file.ts";

const view: View = { width: 60, height: 20, style: makeStyle(false), home: "/work" };

function startTurn(prompt = "go") {
  const s = readyState();
  applyKey(s, { type: "text", text: prompt });
  applyKey(s, { type: "key", name: "enter", ctrl: false, alt: false, shift: false });
  const t = new TurnScript(s.turn!.requestId);
  applyAll(s, [t.started()]);
  return { s, t };
}

Deno.test("idle screen shows the composer placeholder between rules and the status line", async () => {
  const s = readyState();
  await assertSnapshot("idle", renderLive(s, view, createRenderCache()));
});

Deno.test("status line shows model, shortened workspace, context use and turn state", () => {
  const { s, t } = startTurn();
  applyAll(s, [t.completedText("ok"), t.completed(12000, 800)]);
  const line = statusLine(s, view);
  assertEquals(line, "gpt-test · ~/project · ctx 12.8k/128k (10%)" + " ".repeat(13) + "idle");
});

Deno.test("streaming screen shows the latest streamed lines and the turn state", async () => {
  const { s, t } = startTurn();
  applyAll(s, [
    t.delta(
      "First line of the answer.\nSecond line that is long enough to wrap at sixty columns for sure.\nThird",
    ),
  ]);
  await assertSnapshot("streaming", renderLive(s, view, createRenderCache()));
});

Deno.test("streaming text is previewed in its last lines, at most a third of the height", () => {
  const { s, t } = startTurn();
  applyAll(s, [t.delta(Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"))]);
  const lines = renderLive(s, { ...view, height: 15 }, createRenderCache());
  assertEquals(lines.slice(0, 5), [
    "  line 95",
    "  line 96",
    "  line 97",
    "  line 98",
    "  line 99",
  ]);
  assertEquals(lines.length, 5 + 4);
});

Deno.test("the live region never exceeds the terminal height", () => {
  const { s, t } = startTurn();
  applyAll(s, [
    t.delta("x ".repeat(500)),
    t.proposed("c1", "bash", { command: "ls" }),
    t.approval("c1", "bash", "Run shell command: ls"),
  ]);
  applyKey(s, { type: "paste", text: "many\n".repeat(40) });
  for (const height of [4, 6, 10, 30]) {
    const lines = renderLive(s, { ...view, height }, createRenderCache());
    assert(lines.length <= height - 1, `${lines.length} lines for height ${height}`);
  }
});

Deno.test("approval screen shows the tool, risk, summary and the y/n/a choices", async () => {
  const { s, t } = startTurn("list files");
  applyAll(s, [
    t.proposed("c1", "bash", { command: "ls -la" }),
    t.approval("c1", "bash", "Run shell command: ls -la"),
  ]);
  const lines = renderLive(s, view, createRenderCache());
  await assertSnapshot("approval", lines);
  assert(lines.some((l) => l.includes("[y] approve") && l.includes("[n] deny")));
  assert(lines.some((l) => l.includes("[a] always")));
});

Deno.test("incremental stream wrapping matches a fresh render after every delta", () => {
  const { s, t } = startTurn();
  const cache = createRenderCache();
  const words = "The quick brown fox 日本語のテキスト jumps over the lazy dog 👩‍💻 and\nkeeps going "
    .repeat(20);
  let i = 0;
  let n = 1;
  while (i < words.length) {
    applyAll(s, [t.delta(words.slice(i, i + n))]);
    i += n;
    n = (n % 13) + 1;
    const v = { ...view, height: 40 };
    assertEquals(
      renderLive(s, v, cache),
      renderLive(s, v, createRenderCache()),
      `after ${i} chars`,
    );
  }
});

Deno.test("every live line fits the width, with CJK and emoji content", () => {
  const { s, t } = startTurn();
  applyAll(s, [t.delta("日本語".repeat(50) + " 👍".repeat(40))]);
  applyKey(s, { type: "text", text: "中文输入".repeat(30) });
  for (const width of [20, 33, 60]) {
    for (const l of renderLive(s, { ...view, width }, createRenderCache())) {
      assert(displayWidth(l) <= width, `${displayWidth(l)} > ${width}: ${l}`);
    }
  }
});

Deno.test("a resize re-lays the live region for the new width", () => {
  const { s, t } = startTurn();
  const cache = createRenderCache();
  applyAll(s, [t.delta("word ".repeat(40))]);
  const wide = renderLive(s, { ...view, width: 60 }, cache);
  const narrow = renderLive(s, { ...view, width: 25 }, cache);
  assert(narrow.length > wide.length);
  for (const l of narrow) assert(displayWidth(l) <= 25);
});

Deno.test("a multi-line composer shows every line with the cursor", () => {
  const s = readyState();
  applyKey(s, { type: "paste", text: "first line\nsecond line" });
  const lines = renderLive(s, view, createRenderCache());
  assert(lines.includes("› first line"));
  assert(lines.includes("  second line\x1b[7m \x1b[27m"), JSON.stringify(lines));
});

Deno.test("finished assistant messages render as Markdown with a marker", async () => {
  const { s, t } = startTurn();
  drainOutbox(s);
  applyAll(s, [
    t.completedText(
      "## Plan\n\n1. Read **main.ts**\n2. Run `deno test`\n\n```sh\ndeno test -A\n```",
    ),
  ]);
  const [item] = drainOutbox(s);
  await assertSnapshot("assistant_markdown", renderItem(item!, view));
});

Deno.test("finished edit_file calls show a unified diff of the change", async () => {
  const lines = renderItem({
    kind: "tool",
    callId: "c1",
    name: "edit_file",
    args: {
      path: "src/a.ts",
      old_string: "const a = 1;\nconst b = 2;",
      new_string: "const a = 1;\nconst b = 3;",
    },
    summary: "Edit file: src/a.ts",
    success: true,
    output: "Edited src/a.ts",
    truncated: false,
  }, view);
  await assertSnapshot("tool_edit_file", lines);
  const colored = renderItem({
    kind: "tool",
    callId: "c1",
    name: "edit_file",
    args: { path: "a", old_string: "x", new_string: "y" },
    summary: "a",
    success: true,
    output: "",
    truncated: false,
  }, { ...view, style: makeStyle(true) });
  assert(
    colored.some((l) => l.includes("\x1b[31m-x")) && colored.some((l) => l.includes("\x1b[32m+y")),
  );
});

Deno.test("finished tool calls show success or failure and a bounded output preview", async () => {
  const output = Array.from({ length: 30 }, (_, i) => `out ${i}`).join("\n");
  const lines = renderItem({
    kind: "tool",
    callId: "c1",
    name: "bash",
    args: { command: "make" },
    summary: "Run shell command: make",
    success: false,
    output,
    truncated: true,
  }, view);
  await assertSnapshot("tool_bash_failed", lines);
  assert(lines.length < 15);
});

Deno.test("notices show their level and wrap to the width", () => {
  const lines = renderItem({ kind: "notice", level: "warn", text: "w ".repeat(50) }, view);
  assert(lines[0]!.startsWith("! "));
  for (const l of lines) assert(displayWidth(l) <= 60);
});

Deno.test("a streamed delta writes the same bytes with 10 or 10,000 finished items", () => {
  const bytesPerDelta = (items: number) => {
    const { s, t } = startTurn();
    for (let i = 0; i < items; i++) finishItem(s, { kind: "user", text: `item ${i}` });
    drainOutbox(s);
    const cache = createRenderCache();
    const region = new LiveRegion();
    const size = { rows: 30, cols: 61 };
    region.update(renderLive(s, view, cache), size);
    const sizes: number[] = [];
    for (let i = 0; i < 50; i++) {
      applyAll(s, [t.delta(` word${i}`)]);
      sizes.push(region.update(renderLive(s, view, cache), size).length);
    }
    return sizes;
  };
  const small = bytesPerDelta(10);
  const large = bytesPerDelta(10000);
  assertEquals(large, small);
  const sorted = [...large].sort((a, b) => a - b);
  assert(sorted[25]! < 150, `a delta rewrites one line, got ${sorted[25]} bytes`);
  assert(sorted[49]! < 1200, `a new row redraws the small region, got ${sorted[49]} bytes`);
});

/** Escape sequences other than the SGR styling the renderer adds itself. */
// deno-lint-ignore no-control-regex -- looking for escape codes is the point
const FOREIGN_ESCAPE = /\x1b(?!\[[0-9;]*m)|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]/;

Deno.test("a paste with escape sequences never reaches the live region raw", () => {
  const s = readyState();
  applyKey(s, { type: "paste", text: "a\x1b[2J\x1b[Hb\x07c" });
  const lines = renderLive(s, view, createRenderCache());
  for (const l of lines) {
    assert(!l.includes("\x1b[2J") && !l.includes("\x07"), JSON.stringify(l));
    assert(!FOREIGN_ESCAPE.test(l), JSON.stringify(l));
  }
  assert(lines.includes("› abc\x1b[7m \x1b[27m"), JSON.stringify(lines));
});

Deno.test("a composer row holding a control character shows its picture instead", () => {
  const { rows, cursorRow } = layoutComposer(
    { text: "a\x1b[2Jb", cursor: 1 },
    40,
    makeStyle(false),
  );
  assertEquals(cursorRow, 0);
  assertEquals(rows, ["a\x1b[7m\u241b\x1b[27m[2Jb"]);
});

Deno.test("server text with escape sequences is drawn without them", () => {
  const s = readyState();
  applyAll(s, [{
    type: "session.started",
    request_id: "c2",
    session_id: "s1",
    cwd: "/work/\x1b]0;pwned\x07project",
    model: "gpt\x1b[2J-test",
    context_max_tokens: 128000,
    max_server_frame_bytes: 8388608,
    max_transcript_bytes: 8388608,
    max_transcript_items: 10000,
    max_prompt_history_bytes: 1048576,
    max_prompt_history_items: 200,
  }]);
  applyKey(s, { type: "text", text: "go" });
  applyKey(s, { type: "key", name: "enter", ctrl: false, alt: false, shift: false });
  const t = new TurnScript(s.turn!.requestId);
  applyAll(s, [
    t.started(),
    t.proposed("c1", "ba\x1b[Hsh", { command: "ls\x1b[2J" }),
    t.approval("c1", "ba\x1b[Hsh", "Run\x1b[31m shell"),
    t.toolCompleted("c1", "ba\x1b[Hsh", false, "out\x1b]52;c;Y2xpcA==\x07put"),
    t.delta("answer\x1b[1;1H text"),
  ]);
  applyEvent(s, {
    type: "error",
    request_id: "x",
    code: "invalid_request",
    message: "bad\x1b[2J request",
    fatal: false,
  });
  const live = renderLive(s, view, createRenderCache());
  const above = drainOutbox(s).flatMap((item) => renderItem(item, view));
  for (const l of [...live, ...above]) assert(!FOREIGN_ESCAPE.test(l), JSON.stringify(l));
  assert(live.at(-1)!.startsWith("gpt-test · ~/project"), live.at(-1));
  assert(above.some((l) => l.includes("✗ ba") && l.includes("sh")), above.join("\n"));
  assert(above.some((l) => l.includes("bad request")), above.join("\n"));
});

/** Lines without escape codes or trailing blanks. */
const plain = (lines: string[]) => lines.map((l) => stripAnsi(l).trimEnd());

/** A turn that streamed text and ran tools, now awaiting approval of a bash call. */
function awaitingApproval() {
  const { s, t } = startTurn("run it");
  applyAll(s, [
    t.delta("Some streamed text\nthat is still on screen\nin the live region\n"),
    t.proposed("c0", "read_file", { path: "a.ts" }),
    t.toolStarted("c0", "read_file"),
    t.proposed("c1", "bash", { command: "echo resized-42" }),
    t.approval("c1", "bash", "Run shell command: echo resized-42"),
  ]);
  return s;
}

Deno.test("at 5 rows the approval keeps its tool, risk, summary and both choices", () => {
  const s = awaitingApproval();
  const lines = plain(renderLive(s, { ...view, width: 79, height: 5 }, createRenderCache()));
  assertEquals(lines, [
    "╭ Approve bash?  risk: process",
    "│ Run shell command: echo resized-42",
    "╰  [y] approve   [n] deny   [a] always   ←/→ Enter",
    "gpt-test · ~/project · ctx 0/128k (0%)" + " ".repeat(24) + "awaiting approval",
  ]);
});

Deno.test("at 8 rows streamed text and running tools give way before the approval", () => {
  const s = awaitingApproval();
  const lines = plain(renderLive(s, { ...view, width: 79, height: 8 }, createRenderCache()));
  assertEquals(lines.length, 7);
  assertEquals(lines.slice(0, 4), [
    "╭ Approve bash?  risk: process",
    "│ Run shell command: echo resized-42",
    "│ in /work/project",
    "╰  [y] approve   [n] deny   [a] always   ←/→ Enter",
  ]);
  assert(lines[4]!.startsWith("› ") && lines[5]!.startsWith("─"), lines.join("\n"));
  assert(lines[6]!.endsWith("awaiting approval"), lines[6]);
  assert(!lines.some((l) => l.includes("streamed") || l.includes("read_file")), lines.join("\n"));
});

Deno.test("at 20 columns the approval wraps its lines rather than cutting the choices", () => {
  const s = awaitingApproval();
  const lines = renderLive(s, { ...view, width: 19, height: 24 }, createRenderCache());
  for (const l of lines) assert(displayWidth(l) <= 19, `${displayWidth(l)} > 19: ${l}`);
  const text = plain(lines);
  const box = text.slice(
    text.findIndex((l) => l.startsWith("╭")),
    text.findIndex((l) => l.startsWith("╰")) + 1,
  );
  assertEquals(box, [
    "╭ Approve bash?",
    "│ risk: process",
    "│ Run shell",
    "│ command: echo",
    "│ resized-42",
    "│ in /work/project",
    "│  [y] approve",
    "│  [n] deny",
    "╰  [a] always",
  ]);
});

Deno.test("with no room for the composer the approval still shows both choices", () => {
  const s = awaitingApproval();
  for (const height of [4, 5, 6]) {
    const lines = renderLive(s, { ...view, width: 19, height }, createRenderCache());
    assert(lines.length <= height - 1, `${lines.length} lines for height ${height}`);
    assert(lines.some((l) => l.includes("[y] approve")), lines.join("\n"));
    assert(lines.some((l) => l.includes("[n] deny")), lines.join("\n"));
  }
});

Deno.test("an approval summary cut for space ends with an ellipsis", () => {
  const { s, t } = startTurn("run it");
  const long = "Run shell command: " + "echo word; ".repeat(30);
  applyAll(s, [t.proposed("c1", "bash", {}), t.approval("c1", "bash", long)]);
  const lines = plain(renderLive(s, { ...view, width: 40, height: 5 }, createRenderCache()));
  assertEquals(lines.length, 4);
  assert(lines[1]!.startsWith("│ Run shell command:") && lines[1]!.endsWith("…"), lines[1]);
  assert(lines[2]!.includes("[y] approve") && lines[2]!.includes("[n] deny"), lines[2]);
});

Deno.test("at 20 columns the status line still shows the turn state", () => {
  const idle = readyState();
  const idleLine = statusLine(idle, { ...view, width: 19 });
  assertEquals(idleLine, "ctx 0%" + " ".repeat(9) + "idle");
  const s = awaitingApproval();
  const line = statusLine(s, { ...view, width: 19 });
  assertEquals(line, "  awaiting approval");
  for (const width of [10, 17, 19, 25, 40, 60, 100]) {
    const l = statusLine(s, { ...view, width });
    assert(displayWidth(l) <= width, `${displayWidth(l)} > ${width}: ${l}`);
    assert(l.endsWith(width >= 17 ? "awaiting approval" : "…"), l);
  }
});

Deno.test("a short status line drops the workspace before the model and the context use", () => {
  const { s } = startTurn();
  assertEquals(
    statusLine(s, { ...view, width: 40 }),
    "gpt-test · ctx 0/128k (0%)" + " ".repeat(6) + "thinking",
  );
  assertEquals(
    statusLine(s, { ...view, width: 30 }),
    "ctx 0/128k (0%)" + " ".repeat(7) + "thinking",
  );
});

/** Runs the real edit_file tool on a file of `lines` and returns the TUI's tool item. */
async function editedItem(lines: string[], args: { old_string: string; new_string: string }) {
  const dir = await Deno.makeTempDir({ prefix: "scv_render_edit_" });
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, lines.join("\n") + "\n");
    const full = { path: "a.txt", ...args };
    const ctx = {
      cwd: await Deno.realPath(dir),
      signal: new AbortController().signal,
      limits: { maxOutputBytes: 65536, timeoutMs: 10_000 },
      secretEnv: [],
    };
    const r = await editFileTool.run(full, ctx);
    assert(r.success, r.output);
    return {
      kind: "tool" as const,
      callId: "c1",
      name: "edit_file",
      args: full,
      summary: "Edit file: a.txt",
      success: true,
      output: r.output,
      truncated: r.truncated,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("an edit_file diff shows the file's own line numbers", async () => {
  const file = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const item = await editedItem(file, { old_string: "line 10", new_string: "line 10\nline 10b" });
  assertEquals(plain(renderItem(item, view)), [
    "✓ edit_file Edit file: a.txt",
    "  ⎿ @@ -8,6 +8,7 @@",
    "     line 8",
    "     line 9",
    "     line 10",
    "    +line 10b",
    "     line 11",
    "     line 12",
    "     line 13",
    "",
  ]);
});

Deno.test("a change to a file's second line is numbered from line 1 with its context", async () => {
  const item = await editedItem(["one", "two", "three"], { old_string: "two", new_string: "2" });
  const lines = plain(renderItem(item, view));
  assertEquals(lines[1], "  ⎿ @@ -1,3 +1,3 @@");
  assertEquals(lines.slice(2, 6), ["     one", "    -two", "    +2", "     three"]);
});

Deno.test("wrapped help rows align under their description at 80 columns", () => {
  const text = [
    "Commands: /help  /clear (new conversation)  /status  /quit",
    "Keys: Enter send · Shift+Enter, Alt+Enter or Ctrl+J newline · Up/Down history",
    "      Ctrl+A/E or Home/End line start/end · Alt+B/F or Ctrl+←/→ word · Ctrl+U/K/W delete",
    "      Esc or Ctrl+C cancel the turn · Ctrl+C twice or Ctrl+D on an empty prompt quit",
  ].join("\n");
  const lines = renderItem({ kind: "notice", level: "info", text }, { ...view, width: 79 });
  assertEquals(lines, [
    "· Commands: /help  /clear (new conversation)  /status  /quit",
    "  Keys: Enter send · Shift+Enter, Alt+Enter or Ctrl+J newline · Up/Down history",
    "        Ctrl+A/E or Home/End line start/end · Alt+B/F or Ctrl+←/→ word ·",
    "        Ctrl+U/K/W delete",
    "        Esc or Ctrl+C cancel the turn · Ctrl+C twice or Ctrl+D on an empty",
    "        prompt quit",
    "",
  ]);
});

Deno.test("no /help row continues at column 2 at 80 or 50 columns", () => {
  const starts = HELP_TEXT.split("\n");
  for (const width of [79, 49]) {
    const lines = renderItem({ kind: "notice", level: "info", text: HELP_TEXT }, {
      ...view,
      width,
    }).slice(0, -1);
    for (const l of lines) {
      const own = starts.some((t) => l.slice(2).startsWith(t.slice(0, 10)));
      assert(own || l.startsWith("   "), `a wrapped row at column 2: ${JSON.stringify(l)}`);
    }
  }
});

Deno.test("a wrapped notice without a label or indent continues under its first word", () => {
  const text = "The server closed the connection before the turn ended, so nothing more came";
  const lines = renderItem({ kind: "notice", level: "error", text }, { ...view, width: 40 });
  assertEquals(lines, [
    "✗ The server closed the connection",
    "  before the turn ended, so nothing more",
    "  came",
    "",
  ]);
});

Deno.test("while a cancel is pending the composer says how to exit, not that Esc cancels", () => {
  const { s } = startTurn();
  const esc = { type: "key", name: "escape", ctrl: false, alt: false, shift: false } as const;
  applyKey(s, esc);
  assertEquals(s.turn?.phase, "cancelling");
  const lines = plain(renderLive(s, view, createRenderCache()));
  assert(
    lines.some((l) => l.includes("cancelling… · Ctrl+C twice or Ctrl+D exits")),
    lines.join("\n"),
  );
  assert(!lines.some((l) => l.includes("Esc cancels the turn")), lines.join("\n"));
});

Deno.test("every live line fits a 10-column view, the queued-prompts line included", () => {
  const { s } = startTurn();
  for (const p of ["one", "two", "three", "four", "five", "six"]) {
    applyKey(s, { type: "text", text: p });
    applyKey(s, { type: "key", name: "enter", ctrl: false, alt: false, shift: false });
  }
  assertEquals(s.queued.length, 6);
  const narrow: View = { ...view, width: 10 };
  const lines = plain(renderLive(s, narrow, createRenderCache()));
  assert(lines.some((l) => l.startsWith("↳ …")), lines.join("\n"));
  for (const l of lines) assert(displayWidth(l) <= 10, `${JSON.stringify(l)} is wider than 10`);
});

Deno.test("with text in the composer the approval says to empty it to answer", () => {
  const s = awaitingApproval();
  applyKey(s, { type: "text", text: "y" }); // answers: the composer is empty
  assertEquals(s.approval, undefined);
  const s2 = awaitingApproval();
  applyKey(s2, { type: "text", text: "x" });
  applyKey(s2, { type: "text", text: "y" }); // typed: the composer holds text
  assert(s2.approval !== undefined, "still waiting");
  const lines = plain(renderLive(s2, { ...view, width: 79 }, createRenderCache()));
  assert(
    lines.includes("╰  [y] approve   [n] deny   [a] always   empty the prompt to answer"),
    lines.join("\n"),
  );
});

Deno.test("write_file that created a file shows its content as added lines", () => {
  const lines = renderItem({
    kind: "tool",
    callId: "c1",
    name: "write_file",
    args: { path: "notes.md", content: "hello\n" },
    summary: "Write file: notes.md (6 bytes)",
    success: true,
    output: 'Created "notes.md" (6 bytes written)',
    truncated: false,
  }, view);
  assertEquals(lines.slice(1, 3), ["  ⎿ @@ -0,0 +1 @@", "    +hello"]);
});

Deno.test("write_file that overwrote a file says its earlier content is not shown, not a creation hunk", () => {
  const lines = renderItem({
    kind: "tool",
    callId: "c1",
    name: "write_file",
    args: { path: "notes.md", content: "second\n" },
    summary: "Write file: notes.md (7 bytes)",
    success: true,
    output: 'Overwrote "notes.md" (7 bytes written)',
    truncated: false,
  }, view);
  assertEquals(lines.slice(1, 3), [
    "  ⎿ replaced the whole file (its earlier content is not shown) with:",
    "    +second",
  ]);
  assert(!lines.some((l) => l.includes("@@ -0,0")), lines.join("\n"));
});

Deno.test("the call in the approval box is not listed again above it; other proposed calls are", () => {
  const { s, t } = startTurn("two calls");
  applyAll(s, [
    t.proposed("c1", "bash", { command: "ls -la" }),
    t.proposed("c2", "bash", { command: "pwd" }),
    t.approval("c1", "bash", "Run shell command: ls -la"),
  ]);
  const lines = renderLive(s, view, createRenderCache());
  assertEquals(lines.filter((l) => l.includes("ls -la")).length, 1, lines.join("\n"));
  assert(lines.some((l) => l.startsWith("⋯ bash pwd")), lines.join("\n"));
});

Deno.test("an approval shows a multi-line command line by line, as many rows as the screen has", () => {
  const { s, t } = startTurn("script");
  const command = ["cat > x.sh <<'EOF'", ...Array.from({ length: 8 }, (_, i) => `echo ${i}`), "EOF"]
    .join("\n");
  applyAll(s, [
    t.proposed("c1", "bash", { command }),
    t.approval("c1", "bash", `Run shell command: ${command}`),
  ]);
  const lines = renderLive(s, { ...view, height: 30 }, createRenderCache());
  const box = lines.filter((l) => l.startsWith("│ "));
  assertEquals(box.slice(0, 11), [
    "│ Run shell command: cat > x.sh <<'EOF'",
    ...Array.from({ length: 8 }, (_, i) => `│ echo ${i}`),
    "│ EOF",
    "│ in /work/project",
  ]);
  const short = renderLive(s, { ...view, height: 12 }, createRenderCache());
  assert(short.length <= 11, short.join("\n"));
  assert(short.some((l) => l.includes("[y] approve")), short.join("\n"));
  assert(short.some((l) => l.startsWith("› ")), "the composer keeps its row:\n" + short.join("\n"));
});

Deno.test("a two-column notice row too wide for the screen puts its description under its name", () => {
  const text = "Commands: /help                   this list\n" +
    "          /resume                 pick a recorded session";
  const lines = renderItem({ kind: "notice", level: "info", text }, { ...view, width: 30 });
  assertEquals(lines, [
    "· Commands: /help",
    "                this list",
    "            /resume",
    "                pick a",
    "                recorded",
    "                session",
    "",
  ]);
});

Deno.test("a two-column notice row that fits keeps its columns", () => {
  const text = "Commands: /help                   this list";
  const lines = renderItem({ kind: "notice", level: "info", text }, view);
  assertEquals(lines, ["· Commands: /help                   this list", ""]);
});

Deno.test("a narrow notice with a double space that is not a command row wraps as text", () => {
  const text = "look at @src/main.ts  and @big.txt please, both of them";
  const lines = renderItem({ kind: "notice", level: "info", text }, { ...view, width: 30 });
  assertEquals(lines[0], "· look at @src/main.ts  and");
});

Deno.test("status line shows the session's cost after the context use when the server reports it", () => {
  const { s, t } = startTurn();
  applyAll(s, [
    t.completedText("ok"),
    { ...t.completed(12000, 800), session_cost_usd: 0.0421 } as ServerEvent,
  ]);
  const line = statusLine(s, view);
  assertEquals(
    line,
    "gpt-test · ~/project · ctx 12.8k/128k (10%) · $0.0421" + " ".repeat(3) + "idle",
  );
});
