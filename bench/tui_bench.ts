/**
 * TUI streaming benchmark: the cost of one `assistant.delta` from event to terminal bytes
 * (reducer, finished-block rendering, live-region rendering, differential writer), with 100
 * and with 10,000 finished items in the transcript. Both figures must stay flat as the
 * transcript grows: a delta only touches the live region.
 *
 * Run `deno run --no-prompt -A bench/tui_bench.ts` for the report (median and p99 time per
 * delta, bytes written per delta); `deno bench` runs the same loop as benchmark cases.
 *
 * @module
 */
import type { ServerEvent } from "../protocol/schema.ts";
import { createRenderCache, renderItem, renderLive, type View } from "../tui/render.ts";
import {
  applyEvent,
  applyKey,
  type ClientState,
  createState,
  drainOutbox,
  finishItem,
} from "../tui/state/mod.ts";
import { LiveRegion } from "../tui/terminal.ts";
import { makeStyle } from "../tui/text.ts";

const DELTAS = 5000;
const SIZE = { rows: 40, cols: 120 };
const VIEW: View = { width: SIZE.cols - 1, height: SIZE.rows, style: makeStyle(true) };
const encoder = new TextEncoder();

/** A state with a session, `items` finished items (already in scrollback) and a running turn. */
function setup(items: number): { state: ClientState; requestId: string } {
  const state = createState({
    model: "gpt-bench",
    cwd: "/work/project",
    historyLimits: { maxItems: 200, maxBytes: 1 << 20 },
  });
  applyEvent(state, {
    type: "session.started",
    request_id: "c2",
    session_id: "s1",
    cwd: "/work/project",
    model: "gpt-bench",
    context_max_tokens: 128000,
    max_server_frame_bytes: 8388608,
    max_transcript_bytes: 64 * 1024 * 1024,
    max_transcript_items: 10000,
    max_prompt_history_bytes: 1 << 20,
    max_prompt_history_items: 200,
  });
  for (let i = 0; i < items; i++) {
    finishItem(
      state,
      i % 2 === 0
        ? { kind: "user", text: `question number ${i}` }
        : { kind: "assistant", text: `Answer ${i}: **bold**, a list:\n\n- one\n- two\n` },
    );
  }
  drainOutbox(state);
  applyKey(state, { type: "text", text: "go" });
  applyKey(state, { type: "key", name: "enter", ctrl: false, alt: false, shift: false });
  drainOutbox(state);
  return { state, requestId: state.turn!.requestId };
}

/** The i-th delta of a Markdown-ish answer: words, a line break every 15, a paragraph every 60. */
function deltaText(i: number): string {
  const word = [
    "stream",
    "render",
    "delta",
    "terminal",
    "`code`",
    "**bold**",
    "日本語",
    "👍",
  ][i % 8]!;
  if (i % 60 === 59) return ` ${word}.\n\n`;
  if (i % 15 === 14) return ` ${word}\n`;
  return ` ${word}`;
}

interface Result {
  items: number;
  transcriptItems: number;
  timesMs: number[];
  bytes: number[];
}

/** Streams {@link DELTAS} deltas through the whole pipeline, timing each one. */
function run(items: number): Result {
  const { state, requestId } = setup(items);
  const cache = createRenderCache();
  const region = new LiveRegion();
  region.update(renderLive(state, VIEW, cache), SIZE);
  let seq = state.lastSeq + 1;
  const env = () => ({ request_id: requestId, session_id: "s1", turn_id: "t1", seq: seq++ });
  applyEvent(state, { type: "turn.started", ...env() });
  const timesMs: number[] = [];
  const bytes: number[] = [];
  for (let i = 0; i < DELTAS; i++) {
    const ev: ServerEvent = { type: "assistant.delta", ...env(), content: deltaText(i) };
    const t0 = performance.now();
    applyEvent(state, ev);
    const above = drainOutbox(state).flatMap((item) => renderItem(item, VIEW));
    const out = region.update(renderLive(state, VIEW, cache), SIZE, { above });
    const n = encoder.encode(out).length;
    timesMs.push(performance.now() - t0);
    bytes.push(n);
  }
  return { items, transcriptItems: state.transcript.length, timesMs, bytes };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

if (import.meta.main) {
  run(100); // warm up the JIT
  console.log(
    `TUI streaming: ${DELTAS} deltas, ${SIZE.cols}x${SIZE.rows} terminal, colour on\n` +
      "finished items (start→end) | median µs/delta | p99 µs/delta | mean bytes/delta | " +
      "p99 bytes/delta",
  );
  for (const items of [100, 10000]) {
    const r = run(items);
    console.log(
      [
        `${r.items}→${r.transcriptItems}`.padStart(26),
        (quantile(r.timesMs, 0.5) * 1000).toFixed(1).padStart(15),
        (quantile(r.timesMs, 0.99) * 1000).toFixed(1).padStart(12),
        mean(r.bytes).toFixed(0).padStart(16),
        String(quantile(r.bytes, 0.99)).padStart(15),
      ].join(" | "),
    );
  }
}

for (const items of [100, 10000]) {
  Deno.bench({
    name: `tui: ${DELTAS} streamed deltas with ${items} finished items`,
    group: "tui-stream",
    baseline: items === 100,
    n: 3,
    warmup: 1,
    fn: () => {
      run(items);
    },
  });
}
