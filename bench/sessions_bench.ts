/**
 * Session recording (issue 13's budgets, on the 2-core machine): listing 1,000 recorded sessions
 * (under 100 ms), resuming a 5,000-turn session up to `session.started` (under 300 ms), and the
 * cost recording adds to a turn (under 1 ms), fdatasync included.
 *
 * Run: `deno bench --no-prompt -A bench/sessions_bench.ts`
 *
 * @module
 */
import { DEFAULT_CONFIG } from "../server/config.ts";
import { serve } from "../server/peon/serve.ts";
import type { ChatMessage } from "../server/provider/types.ts";
import { Recorder } from "../server/sessions/recorder.ts";
import { encodeRecord, FORMAT_VERSION, type SessionRecord } from "../server/sessions/records.ts";
import { SessionStore } from "../server/sessions/store.ts";
import { FakeSession as View } from "../tests/server/sessions/fake_session.ts";

const SESSIONS = 1_000;
const TURNS = 5_000;

const root = await Deno.makeTempDir({ prefix: "scv-sessions-bench-" });
const listDir = `${root}/list/scv/sessions`;
const resumeHome = `${root}/resume`;
const resumeDir = `${resumeHome}/scv/sessions`;
const workspace = await Deno.realPath(await Deno.makeTempDir({ dir: root, prefix: "ws-" }));

function options(dir: string) {
  return { dir, secrets: ["sk-bench-key"], retentionDays: 30, maxSessions: 100_000, log: () => {} };
}

/** Plays one turn through a recorder: prompt, a tool call and its result, the answer. */
async function turn(view: View, recorder: Recorder, t: number): Promise<void> {
  view.history.push({ role: "user", content: `Turn ${t}: look at src/module_${t}.ts and fix it` });
  recorder.observe({ type: "turn.started" });
  const id = `call_${t}`;
  view.history.push({
    role: "assistant",
    content: null,
    tool_calls: [{
      id,
      type: "function",
      function: { name: "read_file", arguments: JSON.stringify({ path: `src/module_${t}.ts` }) },
    }],
  });
  recorder.observe({ type: "tool.completed", call_id: id, name: "read_file", success: true });
  view.history.push({
    role: "tool",
    tool_call_id: id,
    content: `export function f${t}(x: number): number {\n  return x * ${t};\n}\n`.repeat(8),
  });
  view.history.push({ role: "assistant", content: `Fixed module ${t}: an off-by-one.` });
  view.usage.input_tokens += 900;
  view.usage.output_tokens += 40;
  view.lastSeq += 12;
  await recorder.endTurn("completed", view.lastSeq);
}

// 1,000 recorded sessions of two turns each, through the real recorder (files and index).
const listStore = new SessionStore(options(listDir));
await listStore.ready;
for (let i = 0; i < SESSIONS; i++) {
  const view = new View(i % 2 ? workspace : `/elsewhere/${i % 7}`);
  const recorder = new Recorder(view, { store: listStore, log: () => {} });
  await turn(view, recorder, 0);
  await turn(view, recorder, 1);
  recorder.close();
}

// One session of 5,000 turns, written as the recorder writes it (without 5,000 fdatasyncs).
const resumeId = crypto.randomUUID();
{
  await Deno.mkdir(resumeDir, { recursive: true, mode: 0o700 });
  const lines: string[] = [encodeRecord({
    t: "header",
    v: FORMAT_VERSION,
    session_id: resumeId,
    cwd: workspace,
    model: DEFAULT_CONFIG.model,
    approval_policy: DEFAULT_CONFIG.approval_policy,
    created_at: new Date().toISOString(),
  })];
  let seq = 0;
  for (let t = 0; t < TURNS; t++) {
    const records: SessionRecord[] = [];
    const id = `call_${t}`;
    const messages: ChatMessage[] = [
      { role: "user", content: `Turn ${t}: look at src/module_${t}.ts and fix it` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `m${t}.ts` }) },
        }],
      },
      {
        role: "tool",
        tool_call_id: id,
        content: `export function f${t}(x: number): number {\n  return x * ${t};\n}\n`.repeat(8),
      },
      { role: "assistant", content: `Fixed module ${t}: an off-by-one.` },
    ];
    for (const m of messages) {
      seq += 3;
      records.push(
        m.role === "tool"
          ? { t: "msg", m, tool: { name: "read_file", success: true }, seq }
          : { t: "msg", m, seq },
      );
    }
    records.push({
      t: "mark",
      seq,
      usage: { input_tokens: 900 * (t + 1), output_tokens: 40 * (t + 1) },
      compacted: 0,
      end: "completed",
      at: new Date().toISOString(),
    });
    for (const r of records) lines.push(encodeRecord(r));
  }
  await Deno.writeTextFile(`${resumeDir}/${resumeId}.jsonl`, lines.join(""), { mode: 0o600 });
  const bytes = (await Deno.stat(`${resumeDir}/${resumeId}.jsonl`)).size;
  console.error(`resume bench: ${TURNS} turns, ${(bytes / 1048576).toFixed(1)} MiB file`);
}

const config = { ...DEFAULT_CONFIG, max_history_bytes: 64 * 1024 * 1024 };
const encoder = new TextEncoder();

/** A connection to an in-process server recording into `resumeHome`. */
function connect() {
  const c2s = new TransformStream<Uint8Array, Uint8Array>();
  const s2c = new TransformStream<Uint8Array, Uint8Array>();
  const store = new SessionStore(options(resumeDir));
  const served = serve({
    readable: c2s.readable,
    writable: s2c.writable,
    config,
    sessions: store,
    log: () => {},
  });
  const writer = c2s.writable.getWriter();
  const lines = s2c.readable.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    store,
    send: (m: unknown) => writer.write(encoder.encode(JSON.stringify(m) + "\n")),
    async next(): Promise<Record<string, unknown>> {
      while (!buffered.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("server closed");
        buffered += value;
      }
      const nl = buffered.indexOf("\n");
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      return JSON.parse(line);
    },
    async close() {
      await writer.close();
      await served;
      await lines.cancel().catch(() => {});
    },
  };
}

Deno.bench(`list ${SESSIONS} recorded sessions (a fresh store: index and directory)`, {
  group: "list",
}, async () => {
  const store = new SessionStore(options(listDir));
  const listed = await store.list({ limit: 50 });
  if (listed.matched !== SESSIONS) throw new Error(`listed ${listed.matched}`);
});

Deno.bench(`list ${SESSIONS} recorded sessions of one cwd (warm store)`, {
  group: "list",
}, async () => {
  const listed = await listStore.list({ cwd: workspace, limit: 50 });
  if (listed.matched !== SESSIONS / 2) throw new Error(`listed ${listed.matched}`);
});

Deno.bench(`resume a ${TURNS}-turn session up to session.started`, async (b) => {
  const c = connect();
  await c.store.ready;
  await c.send({ type: "initialize", request_id: "i", protocol_version: 1 });
  await c.next();
  b.start();
  await c.send({ type: "session.start", request_id: "s", cwd: workspace, resume: resumeId });
  const started = await c.next();
  b.end();
  if (started.type !== "session.started") throw new Error(JSON.stringify(started));
  await c.close();
});

const recordStore = new SessionStore(options(`${root}/record/scv/sessions`));
await recordStore.ready;
const recordView = new View(workspace);
const recorder = new Recorder(recordView, { store: recordStore, log: () => {} });
let turns = 0;

Deno.bench("record one turn (4 messages, a mark, fdatasync, an index line)", {
  group: "record",
}, async () => {
  await turn(recordView, recorder, turns++);
  // Keep the live history short, as trimming would: the cost measured is the recording's.
  if (recordView.history.length > 400) recordView.history = recordView.history.slice(200);
});

globalThis.addEventListener("unload", () => {
  recorder.close();
  Deno.removeSync(root, { recursive: true });
});
