/**
 * The TUI shell's parts in-process: the input reader, the effect runner and the render loop,
 * each over fake I/O.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { KeyEvent } from "../../../tui/keys.ts";
import { EffectRunner } from "../../../tui/shell/effect_runner.ts";
import { ExitLatch } from "../../../tui/shell/exit.ts";
import { InputReader } from "../../../tui/shell/input_reader.ts";
import { RenderLoop } from "../../../tui/shell/render_loop.ts";
import {
  addNotice,
  type Effect,
  MAX_MENTION_BYTES,
  type MentionedFile,
} from "../../../tui/state/mod.ts";
import type { OutgoingMessage } from "../../../protocol/client.ts";
import { LiveRegion } from "../../../tui/terminal.ts";
import { makeStyle } from "../../../tui/text.ts";
import { readyState } from "../fixtures.ts";

/** A terminal input that yields `chunks`, then waits for `end` to resolve with EOF or an error. */
function input(chunks: Uint8Array[], end: Promise<null>) {
  return {
    read(buf: Uint8Array): Promise<number | null> {
      const c = chunks.shift();
      if (!c) return end;
      buf.set(c);
      return Promise.resolve(c.length);
    },
  };
}

function shell() {
  const state = readyState();
  const exit = new ExitLatch();
  const writes: string[] = [];
  const render = new RenderLoop({
    state,
    region: new LiveRegion(),
    style: makeStyle(false),
    home: undefined,
    exit,
    write: (s) => writes.push(s),
    size: () => ({ cols: 60, rows: 20 }),
  });
  return { state, exit, writes, render };
}

Deno.test("the input reader ends the TUI with status 0 at EOF", async () => {
  const exit = new ExitLatch();
  using reader = new InputReader({
    input: input([], Promise.resolve(null)),
    exit,
    onKeys: () => {},
  });
  reader.start();
  assertEquals(await exit.done, { status: 0, message: undefined });
});

Deno.test("the input reader ends the TUI with status 1 and the error when a read fails", async () => {
  const exit = new ExitLatch();
  using reader = new InputReader({
    input: { read: () => Promise.reject(new Error("EIO")) },
    exit,
    onKeys: () => {},
  });
  reader.start();
  assertEquals(await exit.done, { status: 1, message: "scv: cannot read the terminal: EIO" });
});

Deno.test("the input reader delivers a lone ESC as Escape once the rest does not come", async () => {
  const exit = new ExitLatch();
  let got!: (e: KeyEvent[]) => void;
  const keys = new Promise<KeyEvent[]>((r) => got = r);
  let endInput!: (v: null) => void;
  using reader = new InputReader({
    input: input([new Uint8Array([0x1b])], new Promise((r) => endInput = r)),
    exit,
    onKeys: got,
  });
  reader.start();
  const events = await keys;
  assertEquals(events.map((e) => e.type === "key" && e.name), ["escape"]);
  endInput(null);
  await exit.done;
});

Deno.test("the render loop draws nothing before the terminal is ready, and no unchanged frame", () => {
  const { writes, render, state } = shell();
  render.renderNow();
  assertEquals(writes, []);
  render.ready = true;
  render.renderNow();
  assertEquals(writes.length, 1);
  render.renderNow();
  assertEquals(writes.length, 1, "the same state is not drawn again");
  addNotice(state, "info", "hello");
  render.renderNow();
  assertEquals(writes.length, 2);
  assert(writes[1]!.includes("hello"));
});

Deno.test("the effect runner sends, and a failed send is written to the transcript", async () => {
  const { state, exit, render } = shell();
  using _frames = render; // drops a frame still scheduled
  const sentTypes: string[] = [];
  let failed!: () => void;
  const failure = new Promise<void>((r) => failed = r);
  await using runner = new EffectRunner({
    state,
    render,
    exit,
    historyPath: undefined,
    send: () => (m) => {
      sentTypes.push(m.type);
      queueMicrotask(failed);
      return Promise.reject(new Error("broken pipe"));
    },
    listModels: () => Promise.resolve({ models: [] }),
    indexFiles: () => Promise.resolve({ paths: [], truncated: false }),
    readFile: () => Promise.resolve({ refused: { reason: "missing", message: "no" } }),
  });
  runner.run([{ kind: "send", message: { type: "session.clear", session_id: "s1" } }]);
  await failure;
  await Promise.resolve();
  assertEquals(sentTypes, ["session.clear"]);
  assert(state.outbox.some((i) => i.kind === "notice" && i.text.includes("broken pipe")));
});

Deno.test("the effect runner applies the model list it fetched", async () => {
  const { state, exit, render } = shell();
  using _frames = render; // drops a frame still scheduled
  let listed!: () => void;
  const done = new Promise<void>((r) => listed = r);
  await using runner = new EffectRunner({
    state,
    render,
    exit,
    historyPath: undefined,
    send: () => undefined,
    listModels: () => {
      queueMicrotask(listed);
      return Promise.resolve({ models: ["a", "gpt-test"] });
    },
    indexFiles: () => Promise.resolve({ paths: [], truncated: false }),
    readFile: () => Promise.resolve({ refused: { reason: "missing", message: "no" } }),
  });
  runner.run([{ kind: "list-models" }]);
  await done;
  await Promise.resolve();
  assert(state.outbox.some((i) => i.kind === "notice" && i.text.includes("* gpt-test")));
});

Deno.test("the effect runner's exit effect decides the exit once", async () => {
  const { state, exit, render } = shell();
  using _frames = render; // drops a frame still scheduled
  await using runner = new EffectRunner({
    state,
    render,
    exit,
    historyPath: undefined,
    send: () => undefined,
    listModels: () => Promise.resolve({ models: [] }),
    indexFiles: () => Promise.resolve({ paths: [], truncated: false }),
    readFile: () => Promise.resolve({ refused: { reason: "missing", message: "no" } }),
  });
  const fx: Effect[] = [{ kind: "exit", status: 0 }, { kind: "exit", status: 1, message: "no" }];
  runner.run(fx);
  assertEquals(await exit.done, { status: 0, message: undefined });
});

Deno.test("the effect runner sends a prompt once the server read its mentioned files, and later sends after it", async () => {
  const { state, exit, render } = shell();
  using _frames = render; // drops a frame still scheduled
  const sentNow: OutgoingMessage[] = [];
  let answer!: (f: MentionedFile) => void;
  const asked: Array<[string, number]> = [];
  await using runner = new EffectRunner({
    state,
    render,
    exit,
    historyPath: undefined,
    send: () => (m) => {
      sentNow.push(m);
      return Promise.resolve("id");
    },
    listModels: () => Promise.resolve({ models: [] }),
    indexFiles: () => Promise.resolve({ paths: [], truncated: false }),
    readFile: (path, maxBytes) => {
      asked.push([path, maxBytes]);
      return new Promise((r) => answer = r);
    },
  });
  runner.run([{
    kind: "send-attached",
    message: { type: "turn.start", request_id: "r1", session_id: "s1", prompt: "see @a.ts" },
    typed: "see @a.ts",
    images: [],
    paths: ["a.ts"],
    maxBytes: 10_000,
  }, { kind: "send", message: { type: "session.clear", request_id: "r2", session_id: "s1" } }]);
  await new Promise((r) => setTimeout(r, 0));
  assertEquals(sentNow, [], "nothing goes before the file is read");
  assertEquals(asked, [["a.ts", MAX_MENTION_BYTES]]);
  answer({ text: "let a;", size: 6, truncated: false });
  await new Promise((r) => setTimeout(r, 0));
  assertEquals(sentNow.map((m) => m.type), ["turn.start", "session.clear"]);
  assertEquals(
    (sentNow[0] as { prompt: string }).prompt,
    'see @a.ts\n\n<file path="a.ts">\nlet a;\n</file>',
  );
  assert(state.outbox.some((i) => i.kind === "notice" && i.text === "Attached @a.ts (6 bytes)"));
  // With nothing waiting, a send goes at once again.
  runner.run([{
    kind: "send",
    message: { type: "session.clear", request_id: "r3", session_id: "s1" },
  }]);
  assertEquals(sentNow.length, 3);
});
