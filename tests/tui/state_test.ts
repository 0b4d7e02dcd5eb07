import { assert, assertEquals } from "../support/assert.ts";
import type { KeyEvent } from "../../tui/keys.ts";
import { renderItem, statusLine } from "../../tui/render.ts";
import {
  applyEvent,
  applyKey,
  applyNoReply,
  applySendFailure,
  awaitingReply,
  type ClientState,
  createState,
  DEFAULT_MAX_PROMPT_BYTES,
  drainOutbox,
  type Effect,
  interruptTurn,
  markClosed,
  OUTBOX_FLUSH_BYTES,
  OUTBOX_FLUSH_ITEMS,
  REPLY_TIMEOUT_MS,
  welcome,
} from "../../tui/state/mod.ts";
import { makeStyle } from "../../tui/text.ts";
import { applyAll, readyState, TurnScript } from "./fixtures.ts";

const k = (
  name: string,
  mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {},
): KeyEvent => ({
  type: "key",
  name,
  ctrl: mods.ctrl ?? false,
  alt: mods.alt ?? false,
  shift: mods.shift ?? false,
});
const typeText = (s: ClientState, text: string) => applyKey(s, { type: "text", text });
const sent = (fx: Effect[]) =>
  fx.filter((f) => f.kind === "send").map((f) => f.kind === "send" ? f.message : undefined);

/** Types a prompt, presses Enter and returns the turn.start request id. */
function submit(s: ClientState, prompt: string): string {
  typeText(s, prompt);
  const msgs = sent(applyKey(s, k("enter")));
  assertEquals(msgs.length, 1);
  const m = msgs[0]!;
  assert(m.type === "turn.start");
  return m.request_id!;
}

Deno.test("enter sends turn.start with the prompt and writes the prompt to the transcript", () => {
  const s = readyState();
  typeText(s, "fix the tests");
  const fx = applyKey(s, k("enter"));
  const msg = sent(fx)[0]!;
  assertEquals(msg.type, "turn.start");
  assertEquals(msg.type === "turn.start" && msg.prompt, "fix the tests");
  assertEquals(msg.type === "turn.start" && msg.session_id, "s1");
  assertEquals(s.composer.text, "");
  assertEquals(drainOutbox(s), [{ kind: "user", text: "fix the tests" }]);
  assertEquals([...s.history.entries], ["fix the tests"]);
  assert(fx.some((f) => f.kind === "save-history"));
});

Deno.test("streamed deltas build the live text and assistant.completed moves it to the transcript", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  drainOutbox(s);
  applyAll(s, [t.started(), t.delta("Hel"), t.delta("lo")]);
  assertEquals(s.streamText, "Hello");
  assertEquals(s.turn?.phase, "streaming");
  applyAll(s, [t.completedText("Hello!"), t.completed(1500, 300)]);
  assertEquals(s.streamText, "");
  assertEquals(drainOutbox(s), [{ kind: "assistant", text: "Hello!" }]);
  assertEquals(s.turn, undefined);
  assertEquals(s.contextTokens, 1800);
});

Deno.test("escape during a turn sends turn.cancel for the running turn", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started(), t.delta("partial")]);
  const msg = sent(applyKey(s, k("escape")))[0]!;
  assertEquals(msg.type === "turn.cancel" && msg.turn_id, "t1");
  assertEquals(s.turn?.phase, "cancelling");
  applyAll(s, [t.cancelled()]);
  assertEquals(s.turn, undefined);
  const items = drainOutbox(s);
  assert(
    items.some((i) => i.kind === "assistant" && i.text === "partial" && i.note === "cancelled"),
  );
  assert(items.some((i) => i.kind === "notice" && i.text === "Turn cancelled"));
});

Deno.test("ctrl+c during a turn cancels it and does not exit", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  const fx = applyKey(s, k("c", { ctrl: true }));
  assertEquals(sent(fx)[0]!.type, "turn.cancel");
  assert(!fx.some((f) => f.kind === "exit"));
});

Deno.test("escape before turn.started cancels as soon as the turn id is known", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  assertEquals(sent(applyKey(s, k("escape"))), []);
  const fx = applyEvent(s, t.started());
  assertEquals(sent(fx)[0]!.type, "turn.cancel");
});

Deno.test("ctrl+c on an empty idle composer exits only when pressed twice in a row", () => {
  const s = readyState();
  assertEquals(applyKey(s, k("c", { ctrl: true })), []);
  assertEquals(s.hint, "Press Ctrl+C again to exit");
  typeText(s, "x"); // any other key disarms
  applyKey(s, k("backspace"));
  assertEquals(applyKey(s, k("c", { ctrl: true })), []);
  assertEquals(applyKey(s, k("c", { ctrl: true })), [{ kind: "exit", status: 0 }]);
});

Deno.test("ctrl+c on a non-empty idle composer clears it instead of exiting", () => {
  const s = readyState();
  typeText(s, "draft");
  assertEquals(applyKey(s, k("c", { ctrl: true })), []);
  assertEquals(s.composer.text, "");
});

Deno.test("ctrl+d exits on an empty composer and deletes forward otherwise", () => {
  const s = readyState();
  typeText(s, "ab");
  applyKey(s, k("home"));
  assertEquals(applyKey(s, k("d", { ctrl: true })), []);
  assertEquals(s.composer.text, "b");
  applyKey(s, k("d", { ctrl: true }));
  assertEquals(applyKey(s, k("d", { ctrl: true })), [{ kind: "exit", status: 0 }]);
});

Deno.test("shift+enter, alt+enter and ctrl+j insert a newline instead of sending", () => {
  const s = readyState();
  typeText(s, "a");
  assertEquals(applyKey(s, k("enter", { shift: true })), []);
  typeText(s, "b");
  assertEquals(applyKey(s, k("enter", { alt: true })), []);
  typeText(s, "c");
  assertEquals(applyKey(s, k("j", { ctrl: true })), []);
  assertEquals(s.composer.text, "a\nb\nc\n");
});

Deno.test("a bracketed paste is inserted whole and not sent", () => {
  const s = readyState();
  assertEquals(applyKey(s, { type: "paste", text: "line 1\nline 2\n" }), []);
  assertEquals(s.composer.text, "line 1\nline 2\n");
  assertEquals(s.turn, undefined);
});

Deno.test("approval y sends approval.resolve approved and n sends denied", () => {
  for (const [key, approved] of [["y", true], ["n", false]] as const) {
    const s = readyState();
    const t = new TurnScript(submit(s, "run"));
    applyAll(s, [
      t.started(),
      t.proposed("c1", "bash", { command: "ls" }),
      t.approval("c1", "bash", "Run shell command: ls"),
    ]);
    assertEquals(s.approval?.summary, "Run shell command: ls");
    const msg = sent(typeText(s, key))[0]!;
    assert(msg.type === "approval.resolve");
    assertEquals(msg.approved, approved);
    assertEquals(msg.approval_id, "a-c1");
    assertEquals(s.approval, undefined);
    assertEquals(s.composer.text, "", "the answer key is not typed into the composer");
  }
});

Deno.test("approval enter answers the highlighted choice, which arrows toggle", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "run"));
  applyAll(s, [
    t.started(),
    t.proposed("c1", "bash", { command: "ls" }),
    t.approval("c1", "bash", "x"),
  ]);
  applyKey(s, k("right"));
  assertEquals(s.approval?.choice, "deny");
  const msg = sent(applyKey(s, k("enter")))[0]!;
  assertEquals(msg.type === "approval.resolve" && msg.approved, false);
});

Deno.test("tool.completed finishes the call with its arguments for the diff view", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "edit"));
  drainOutbox(s);
  const args = { path: "a.ts", old_string: "x", new_string: "y" };
  applyAll(s, [t.started(), t.proposed("c1", "edit_file", args), t.toolStarted("c1", "edit_file")]);
  assertEquals(s.tools.map((x) => x.status), ["running"]);
  applyAll(s, [t.toolCompleted("c1", "edit_file", true, "Edited a.ts")]);
  assertEquals(s.tools, []);
  const [item] = drainOutbox(s);
  assert(item?.kind === "tool");
  assertEquals(item.args, args);
  assertEquals(item.success, true);
});

Deno.test("/clear sends session.clear and clears the transcript only after session.cleared", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started(), t.completedText("answer"), t.completed()]);
  typeText(s, "/clear");
  const msg = sent(applyKey(s, k("enter")))[0]!;
  assert(msg.type === "session.clear");
  assert(s.transcript.length > 0, "kept until the server confirms");
  const fx = applyEvent(s, {
    type: "session.cleared",
    request_id: msg.request_id!,
    session_id: "s1",
    seq: t.seq,
  });
  assert(fx.some((f) => f.kind === "clear-screen"));
  assertEquals(s.transcript.map((i) => i.kind), ["notice"]);
  assertEquals(s.contextTokens, undefined);
});

Deno.test("session.cleared keeps what waits to be shown, such as a seq warning", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started(), t.completedText("answer"), t.completed()]);
  typeText(s, "/clear");
  const msg = sent(applyKey(s, k("enter")))[0]!;
  drainOutbox(s);
  applyEvent(s, {
    type: "session.cleared",
    request_id: msg.request_id!,
    session_id: "s1",
    seq: t.seq + 5,
  });
  const shown = drainOutbox(s).map((i) => i.kind === "notice" ? i.text : i.kind);
  assertEquals(shown.length, 2, JSON.stringify(shown));
  assert(String(shown[0]).startsWith("Protocol warning: seq jumped"), String(shown[0]));
  assert(String(shown[1]).startsWith("Session cleared"), String(shown[1]));
});

Deno.test("a known slash command with extra words is refused and kept; a path is a prompt", () => {
  const s = readyState();
  typeText(s, "/clear now");
  assertEquals(sent(applyKey(s, k("enter"))), [], "neither a clear nor a prompt");
  assertEquals(s.composer.text, "/clear now", "the text is kept to be fixed");
  const [warn] = drainOutbox(s);
  assert(warn?.kind === "notice" && warn.text.startsWith("/clear takes no arguments"), warn?.kind);
  applyKey(s, k("c", { ctrl: true })); // Ctrl+C clears the composer
  typeText(s, "/etc/hosts looks wrong");
  const [msg] = sent(applyKey(s, k("enter")));
  assert(
    msg?.type === "turn.start" && msg.prompt === "/etc/hosts looks wrong",
    JSON.stringify(msg),
  );
  const t = new TurnScript(msg.request_id!);
  applyAll(s, [t.started(), t.completedText("ok"), t.completed()]);
  typeText(s, "/CLEAR");
  assertEquals(sent(applyKey(s, k("enter")))[0]?.type, "session.clear", "commands ignore case");
});

Deno.test("/clear during a turn is refused with a message", () => {
  const s = readyState();
  submit(s, "hi");
  typeText(s, "/clear");
  assertEquals(sent(applyKey(s, k("enter"))), []);
  assert(s.transcript.some((i) => i.kind === "notice" && i.text.startsWith("Cannot clear")));
});

Deno.test("/help, /status and an unknown command write notices; /quit exits", () => {
  const s = readyState();
  typeText(s, "/help");
  applyKey(s, k("enter"));
  typeText(s, "/status");
  applyKey(s, k("enter"));
  typeText(s, "/nope");
  applyKey(s, k("enter"));
  const texts = drainOutbox(s).map((i) => (i.kind === "notice" ? i.text : ""));
  assert(texts[0]!.startsWith("Commands:"));
  assert(texts[1]!.includes("Model: gpt-test"));
  assert(texts[2]!.startsWith("Unknown command /nope"));
  typeText(s, "/quit");
  assertEquals(applyKey(s, k("enter")).filter((f) => f.kind === "exit"), [{
    kind: "exit",
    status: 0,
  }]);
});

// scv 0.3: Enter while a turn runs steers it (tests/tui/state/waiting_test.ts), and Tab queues
// the prompt on the server, which starts it when the turn completes.
Deno.test("typing continues during a turn and tab queues the prompt until the turn completes", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "first"));
  applyAll(s, [t.started(), t.delta("working")]);
  typeText(s, "second");
  assertEquals(s.composer.text, "second");
  const [queued] = sent(applyKey(s, k("tab")));
  assert(queued?.type === "turn.start" && queued.queue === true && queued.prompt === "second");
  assertEquals(s.queued.map((q) => q.text), ["second"]);
  applyAll(s, [t.completedText("working"), t.completed()]);
  // The server starts it; the client follows it as its running turn.
  assertEquals(s.turn?.requestId, queued.request_id);
  assertEquals(s.queued, []);
});

Deno.test("queued prompts return to the composer when the turn is cancelled", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "first"));
  applyAll(s, [t.started()]);
  typeText(s, "second");
  applyKey(s, k("enter"));
  applyAll(s, [t.cancelled()]);
  assertEquals(s.composer.text, "second");
});

Deno.test("up and down walk the prompt history and restore the draft", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "one"));
  applyAll(s, [t.started(), t.completed()]);
  typeText(s, "draft");
  applyKey(s, k("up"));
  assertEquals(s.composer.text, "one");
  applyKey(s, k("down"));
  assertEquals(s.composer.text, "draft");
});

Deno.test("the transcript keeps at most max_transcript_items, dropping the oldest", () => {
  const s = readyState({ maxTranscriptItems: 5 });
  for (let i = 0; i < 12; i++) {
    typeText(s, `/nope${"x".repeat(i)}`);
    applyKey(s, k("enter"));
  }
  assertEquals(s.transcript.length, 5);
  assert(s.transcript.at(-1)!.kind === "notice");
});

Deno.test("the transcript keeps at most max_transcript_bytes, dropping the oldest", () => {
  const s = readyState({ maxTranscriptBytes: 1000 });
  let seq = 1;
  for (let i = 0; i < 20; i++) {
    const t = new TurnScript(submit(s, `prompt ${i}`), seq, `t${i}`);
    applyAll(s, [t.started(), t.completedText("y".repeat(200)), t.completed()]);
    seq = t.seq;
  }
  assert(s.transcriptBytes <= 1000, `bytes ${s.transcriptBytes}`);
  assert(s.transcript.length < 40);
  const recount = s.transcript.reduce(
    (n, i) =>
      n + (i.kind === "tool" || i.kind === "plan" ? 0 : new TextEncoder().encode(i.text).length),
    0,
  );
  assertEquals(recount, s.transcriptBytes);
});

Deno.test("a seq gap is shown as a warning and the event still applies", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  t.seq += 3;
  applyAll(s, [t.delta("x")]);
  assertEquals(s.streamText, "x");
  assert(
    s.transcript.some((i) =>
      i.kind === "notice" && i.level === "warn" &&
      i.text.includes("seq jumped from 1 to 5; 3 events missing")
    ),
  );
});

Deno.test("a repeated seq is shown as a warning and the duplicate is ignored", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  const d = t.delta("once");
  applyAll(s, [d, d]);
  assertEquals(s.streamText, "once");
  assert(s.transcript.some((i) => i.kind === "notice" && i.text.includes("repeats seq 2")));
});

Deno.test("a refused turn.start ends the turn and shows the error", () => {
  const s = readyState();
  const id = submit(s, "hi");
  applyEvent(s, {
    type: "error",
    request_id: id,
    code: "turn_active",
    message: "a turn is running",
    fatal: false,
  });
  assertEquals(s.turn, undefined);
  assert(
    s.transcript.some((i) =>
      i.kind === "notice" && i.level === "error" && i.text.includes("turn_active")
    ),
  );
});

Deno.test("a fatal error event asks the shell to exit with the message", () => {
  const s = readyState();
  const fx = applyEvent(s, {
    type: "error",
    code: "version_mismatch",
    message: "v2 required",
    fatal: true,
  });
  assertEquals(fx.length, 1);
  assert(fx[0]!.kind === "exit" && fx[0]!.status === 1 && fx[0]!.message!.includes("v2 required"));
});

Deno.test("events of another session or turn are ignored", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  applyEvent(s, {
    type: "assistant.delta",
    request_id: "x",
    session_id: "other",
    turn_id: "t1",
    seq: 2,
    content: "no",
  });
  applyEvent(s, {
    type: "assistant.delta",
    request_id: "x",
    session_id: "s1",
    turn_id: "t9",
    seq: 2,
    content: "no",
  });
  assertEquals(s.streamText, "");
});

Deno.test("complete Markdown blocks of a streaming message go to scrollback before it ends", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  drainOutbox(s);
  applyAll(s, [t.started(), t.delta("# Title\n\nFirst para"), t.delta("graph.\n\nSecond")]);
  assertEquals(drainOutbox(s), [
    { kind: "assistant", text: "# Title" },
    { kind: "assistant", text: "First paragraph.", continued: true },
  ]);
  assertEquals(s.streamText, "Second");
  applyAll(s, [t.delta(" one.")]);
  applyAll(s, [t.completedText("# Title\n\nFirst paragraph.\n\nSecond one.")]);
  assertEquals(drainOutbox(s), [{ kind: "assistant", text: "Second one.", continued: true }]);
  assertEquals(s.streamText, "");
});

Deno.test("an unfinished list or code block is not written before the next block starts", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  drainOutbox(s);
  applyAll(s, [t.started(), t.delta("- a\n- b\n\n"), t.delta("```ts\nconst x = 1;\n")]);
  assertEquals(drainOutbox(s), [{ kind: "assistant", text: "- a\n- b" }]);
  assertEquals(s.streamText, "```ts\nconst x = 1;\n");
});

Deno.test("a canonical message that differs from the stream is written whole", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  drainOutbox(s);
  applyAll(s, [t.started(), t.delta("one\n\ntwo\n")]);
  drainOutbox(s);
  applyAll(s, [t.completedText("something else")]);
  assertEquals(drainOutbox(s), [{ kind: "assistant", text: "something else" }]);
});

Deno.test("a prompt over 256 KiB is refused locally and kept in the composer", () => {
  assertEquals(DEFAULT_MAX_PROMPT_BYTES, 262144);
  const s = readyState();
  const big = "é".repeat(DEFAULT_MAX_PROMPT_BYTES / 2) + "x"; // one byte over, counted in UTF-8
  applyKey(s, { type: "paste", text: big });
  assertEquals(sent(applyKey(s, k("enter"))), []);
  assertEquals(s.turn, undefined);
  assertEquals(s.composer.text, big);
  assert(
    s.transcript.some((i) =>
      i.kind === "notice" && i.level === "error" && i.text.includes("over the server's limit")
    ),
  );
  applyKey(s, k("backspace")); // exactly the limit is sent
  assertEquals(sent(applyKey(s, k("enter")))[0]?.type, "turn.start");
});

Deno.test("an error without request_id before turn.started ends the turn and restores the prompt", () => {
  const s = readyState();
  submit(s, "a long prompt");
  typeText(s, "draft");
  applyEvent(s, {
    type: "error",
    code: "invalid_request",
    message: "frame of 1048577 bytes exceeds max_client_frame_bytes (1048576)",
    fatal: false,
  });
  assertEquals(s.turn, undefined);
  assertEquals(s.composer.text, "a long prompt\ndraft");
  // Not stuck: Esc does nothing, /clear is accepted and the next prompt is sent, not queued.
  assertEquals(applyKey(s, k("escape")), []);
  applyKey(s, k("c", { ctrl: true }));
  typeText(s, "/clear");
  assertEquals(sent(applyKey(s, k("enter")))[0]?.type, "session.clear");
});

Deno.test("an error without request_id after turn.started leaves the turn running", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  applyEvent(s, { type: "error", code: "invalid_json", message: "bad", fatal: false });
  assertEquals(s.turn?.turnId, "t1");
});

Deno.test("a refused turn.start gives its prompt back to the composer", () => {
  const s = readyState();
  const id = submit(s, "hi");
  applyEvent(s, {
    type: "error",
    request_id: id,
    code: "turn_active",
    message: "a turn is running",
    fatal: false,
  });
  assertEquals(s.composer.text, "hi");
});

Deno.test("a turn.start that could not be sent ends the turn and restores the prompt", () => {
  const s = readyState();
  typeText(s, "hello");
  const [msg] = sent(applyKey(s, k("enter")));
  assert(msg?.type === "turn.start");
  applySendFailure(s, msg, "Broken pipe");
  assertEquals(s.turn, undefined);
  assertEquals(s.composer.text, "hello");
  assert(s.transcript.some((i) => i.kind === "notice" && i.text.includes("Broken pipe")));
  applyKey(s, k("c", { ctrl: true })); // clears the composer: the turn is over
  typeText(s, "/clear");
  assertEquals(sent(applyKey(s, k("enter")))[0]?.type, "session.clear");
});

Deno.test("enter before the session is ready keeps the prompt in the composer", () => {
  const s = createState({
    model: "m",
    cwd: "/w",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
  });
  typeText(s, "too early");
  assertEquals(sent(applyKey(s, k("enter"))), []);
  assertEquals(s.composer.text, "too early");
  assert(s.transcript.some((i) => i.kind === "notice" && i.text.startsWith("Not connected")));
});

Deno.test("the context figure of a multi-step turn is the per-step estimate, at most 100%", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started(), t.completed(141000, 3000, 2)]);
  assertEquals(s.contextTokens, 72000);
  const line = statusLine(s, { width: 80, height: 20, style: makeStyle(false) });
  assert(line.includes("ctx 72.0k/128k (56%)"), line);
  const t2 = new TurnScript(submit(s, "again"), t.seq, "t2");
  applyAll(s, [t2.started(), t2.completed(300000, 0, 1)]);
  const full = statusLine(s, { width: 80, height: 20, style: makeStyle(false) });
  assert(full.includes("(100%)"), full);
});

Deno.test("context.compacted in a turn is not overwritten by the turn's usage", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started(), t.compacted(130000, 40000), t.completed(400000, 2000, 4)]);
  assertEquals(s.contextTokens, 40000);
});

Deno.test("quitting mid-turn writes the streamed text and unfinished calls, marked interrupted", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "stream"));
  applyAll(s, [
    t.started(),
    t.delta("# Part one\n\nfirst block\n\nsecond "),
    t.delta("block, cut"),
  ]);
  applyAll(s, [t.proposed("c1", "bash", { command: "sleep 9" })]);
  applyAll(s, [t.delta("more text after the call")]);
  drainOutbox(s);
  interruptTurn(s);
  const items = drainOutbox(s);
  assertEquals(items, [
    { kind: "assistant", text: "more text after the call", note: "interrupted" },
    {
      kind: "tool",
      callId: "c1",
      name: "bash",
      args: { command: "sleep 9" },
      summary: "sleep 9",
      success: false,
      output: "(interrupted before this call completed)",
      truncated: false,
    },
  ]);
  assertEquals(s.turn, undefined);
  assertEquals(s.streamText, "");
});

Deno.test("a closed connection writes the running turn's streamed text, marked interrupted", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started(), t.delta("partial answer then death")]);
  drainOutbox(s);
  markClosed(s);
  assertEquals(drainOutbox(s), [
    { kind: "assistant", text: "partial answer then death", note: "interrupted" },
  ]);
  assertEquals(s.connection, "closed");
});

Deno.test("editing a recalled history entry keeps the draft for Down past the newest", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "older entry"));
  applyAll(s, [t.started(), t.completed()]);
  typeText(s, "leftover");
  applyKey(s, k("c", { ctrl: true })); // clears the composer
  typeText(s, "my precious draft");
  applyKey(s, k("up"));
  assertEquals(s.composer.text, "older entry");
  typeText(s, "!");
  applyKey(s, k("down"));
  assertEquals(s.composer.text, "my precious draft");
  applyKey(s, k("down"));
  applyKey(s, k("down"));
  assertEquals(s.composer.text, "my precious draft");
  applyKey(s, k("up"));
  assertEquals(s.composer.text, "older entry!", "the edit is kept until a prompt is sent");
});

Deno.test("up and down move by visual row in a wrapped prompt, recalling history only at its ends", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "previous prompt"));
  applyAll(s, [t.started(), t.completed()]);
  s.composerWidth = 27; // a 30-column terminal: 26 columns of text per row
  const long = "x".repeat(30) + " " + "y".repeat(39); // 70 characters: rows of 26, 26, 18
  typeText(s, long);
  applyKey(s, k("up"));
  assertEquals(s.composer.text, long, "Up on the last row moves up a row, not into the history");
  assertEquals(s.composer.cursor, 44);
  applyKey(s, k("up"));
  assertEquals(s.composer.cursor, 18);
  applyKey(s, k("down"));
  applyKey(s, k("down"));
  assertEquals(s.composer.cursor, 70);
  applyKey(s, k("down")); // the last row: Down walks the history (nothing newer)
  assertEquals(s.composer.text, long);
  applyKey(s, k("up"));
  applyKey(s, k("up"));
  applyKey(s, k("up")); // the first row: Up recalls the previous prompt
  assertEquals(s.composer.text, "previous prompt");
  applyKey(s, k("down"));
  assertEquals(s.composer.text, long, "Down past the newest gives the draft back");
});

Deno.test("every finished item reaches scrollback when more than max_transcript_items arrive at once", () => {
  const s = readyState({ maxTranscriptItems: 5 });
  const t = new TurnScript(submit(s, "many"));
  drainOutbox(s);
  applyAll(s, [t.started()]);
  for (let i = 0; i < 60; i++) applyAll(s, [t.completedText(`message number ${i}`)]);
  const items = drainOutbox(s);
  assertEquals(items.length, 60);
  assertEquals(items.map((i) => i.kind === "assistant" && i.text), [
    ...Array.from({ length: 60 }, (_, i) => `message number ${i}`),
  ]);
  assertEquals(s.transcript.length, 5, "the bound still limits the transcript in memory");
});

Deno.test("an outbox past its bound between two frames asks the shell to flush it", () => {
  const s = readyState({ maxTranscriptItems: 5 });
  const t = new TurnScript(submit(s, "many"));
  drainOutbox(s);
  applyAll(s, [t.started()]);
  const flushes: number[] = [];
  for (let i = 0; i < 2 * OUTBOX_FLUSH_ITEMS; i++) {
    const fx = applyEvent(s, t.completedText(`m${i}`));
    if (fx.some((f) => f.kind === "flush")) {
      flushes.push(s.outbox.length);
      drainOutbox(s); // as the shell does
    }
  }
  assertEquals(flushes, [OUTBOX_FLUSH_ITEMS + 1]);
  const big = applyEvent(s, t.completedText("z".repeat(OUTBOX_FLUSH_BYTES + 1)));
  assert(big.some((f) => f.kind === "flush"), "a flush is asked for by size too");
});

Deno.test("ctrl+c twice exits while a cancel awaits the server's confirmation", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  const fx = applyKey(s, k("c", { ctrl: true }));
  assertEquals(sent(fx)[0]!.type, "turn.cancel");
  assertEquals(s.turn?.phase, "cancelling");
  assertEquals(applyKey(s, k("c", { ctrl: true })), []);
  assertEquals(s.hint, "Press Ctrl+C again to exit");
  assertEquals(applyKey(s, k("c", { ctrl: true })), [{ kind: "exit", status: 0 }]);
});

Deno.test("a cancel the server does not confirm is reported after a timeout, with how to exit", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  const fx = applyKey(s, k("escape"));
  assertEquals(fx.filter((f) => f.kind === "expect-reply"), [
    { kind: "expect-reply", request: "turn.cancel", ms: REPLY_TIMEOUT_MS },
  ]);
  assert(awaitingReply(s, "turn.cancel"));
  drainOutbox(s);
  applyNoReply(s, "turn.cancel");
  const [item] = drainOutbox(s);
  assert(item?.kind === "notice" && item.level === "warn", JSON.stringify(item));
  assert(item.text.startsWith("The server has not confirmed the cancel after 5 s"), item.text);
  assert(item.text.includes("Ctrl+C twice, or Ctrl+D on an empty prompt, exits"), item.text);
  assert(s.hint?.includes("Ctrl+C twice or Ctrl+D exits"), s.hint);
  // A late confirmation still ends the turn, and the hint goes with it.
  applyAll(s, [t.cancelled()]);
  assertEquals(s.turn, undefined);
  assertEquals(s.hint, undefined);
  assert(!awaitingReply(s, "turn.cancel"));
  drainOutbox(s);
  applyNoReply(s, "turn.cancel");
  assertEquals(drainOutbox(s), [], "nothing is said once the cancel was confirmed");
});

Deno.test("a Ctrl+C not followed by another gives back the unconfirmed cancel's exit hint", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "hi"));
  applyAll(s, [t.started()]);
  applyKey(s, k("escape"));
  applyNoReply(s, "turn.cancel");
  const waiting = s.hint;
  assert(waiting?.includes("Ctrl+C twice or Ctrl+D exits"), waiting);
  applyKey(s, k("c", { ctrl: true }));
  assertEquals(s.hint, "Press Ctrl+C again to exit");
  applyKey(s, { type: "text", text: "x" });
  assertEquals(s.hint, waiting, "the way out is still shown while the cancel is unconfirmed");
  // Once the cancel is confirmed, an unused Ctrl+C leaves no stale hint behind.
  applyKey(s, k("c", { ctrl: true })); // clears the composer
  applyKey(s, k("c", { ctrl: true })); // arms
  applyAll(s, [t.cancelled()]);
  applyKey(s, { type: "text", text: "y" });
  assertEquals(s.hint, undefined);
});

Deno.test("a /clear the server does not confirm stops waiting after a timeout and says so", () => {
  const s = readyState();
  typeText(s, "/clear");
  const fx = applyKey(s, k("enter"));
  assert(fx.some((f) => f.kind === "expect-reply" && f.request === "session.clear"));
  assert(awaitingReply(s, "session.clear"));
  assertEquals(
    statusLine(s, { width: 80, height: 20, style: makeStyle(false) }).trim().split(/\s+/).at(-1),
    "clearing",
  );
  drainOutbox(s);
  applyNoReply(s, "session.clear");
  assertEquals(s.clearing, undefined);
  assertEquals(
    statusLine(s, { width: 80, height: 20, style: makeStyle(false) }).trim().split(/\s+/).at(-1),
    "idle",
  );
  const [item] = drainOutbox(s);
  assert(
    item?.kind === "notice" && item.text.includes("has not confirmed /clear after 5 s"),
    JSON.stringify(item),
  );
});

Deno.test("a streamed block with a reference-style link waits for the message's definitions", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "docs"));
  drainOutbox(s);
  const text = "Intro paragraph.\n\nSee [the docs][d] for details.\n\nMore text here.\n\n" +
    "[d]: https://example.com/docs\n";
  applyAll(s, [t.started()]);
  for (let i = 0; i < text.length; i += 4) applyAll(s, [t.delta(text.slice(i, i + 4))]);
  assertEquals(drainOutbox(s), [{ kind: "assistant", text: "Intro paragraph." }]);
  applyAll(s, [t.completedText(text)]);
  const items = drainOutbox(s);
  const view = { width: 70, height: 20, style: makeStyle(false) };
  const shown = items.flatMap((i) => renderItem(i, view)).join("\n");
  assert(shown.includes("See the docs (https://example.com/docs) for details."), shown);
  assert(shown.includes("More text here."), shown);
});

Deno.test("plain brackets in prose ([1], [WIP], [options]) do not hold streamed blocks back", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "prose"));
  drainOutbox(s);
  applyAll(s, [
    t.started(),
    t.delta("The array [1, 2, 3] is sorted [WIP].\n\nRun `cmd` [options].\n\nNext "),
    t.delta("block"),
  ]);
  assertEquals(drainOutbox(s).map((i) => i.kind === "assistant" && i.text), [
    "The array [1, 2, 3] is sorted [WIP].\n\nRun `cmd` [options].",
  ]);
});

Deno.test("a reference link whose definition never comes does not hold a long answer back", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "long"));
  drainOutbox(s);
  applyAll(s, [t.started(), t.delta("See [the docs][d].\n\n")]);
  const para = "word ".repeat(200) + "\n\n"; // about 1 KiB
  // Past 64 KiB the hold is dropped, at the next re-lex (which runs as the text grows by half).
  for (let i = 0; i < 100; i++) applyAll(s, [t.delta(para)]);
  const out = drainOutbox(s);
  assert(out.length > 0, "the held blocks were released past the bound");
  assert(s.streamText.length < 64 * 1024, `${s.streamText.length} bytes still held`);
});

Deno.test("brackets in code or after a word do not hold streamed blocks back", () => {
  const s = readyState();
  const t = new TurnScript(submit(s, "code"));
  drainOutbox(s);
  applyAll(s, [t.started(), t.delta("Use `a[0]` or a[1] here.\n\nNext "), t.delta("block")]);
  assertEquals(drainOutbox(s), [{ kind: "assistant", text: "Use `a[0]` or a[1] here." }]);
});

Deno.test("the startup banner comes first, then the warnings held since startup", () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
    startupWarnings: ["Custom command /w/.scv/commands/help.md is not used"],
  });
  assertEquals(drainOutbox(s), [], "nothing is shown before the banner");
  welcome(s);
  const shown = drainOutbox(s).map((i) => i.kind === "notice" ? `${i.level}: ${i.text}` : i.kind);
  assertEquals(shown, [
    "info: scv · gpt-test · /work/project\nType a prompt and press Enter; /help lists commands.",
    "warn: Custom command /w/.scv/commands/help.md is not used",
  ]);
  welcome(s);
  assertEquals(drainOutbox(s).length, 1, "the warnings are shown once");
});
