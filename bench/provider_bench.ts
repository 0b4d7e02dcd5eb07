/**
 * The provider's pure read path: a 2,000-delta Chat Completions stream through the bounded SSE
 * decoder and the chunk accumulator, as one body and in 1 KiB network-sized chunks.
 */
import { SseDecoder } from "../server/provider/sse.ts";
import { ChatAccumulator } from "../server/provider/chat_accumulator.ts";
import { DEFAULT_RESPONSE_LIMITS } from "../server/provider/limits.ts";

const enc = new TextEncoder();
const lines: string[] = [];
for (let i = 0; i < 2000; i++) {
  lines.push(
    `data: ${
      JSON.stringify({
        id: "c",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: `tok${i} ` } }],
      })
    }\n\n`,
  );
}
lines.push(
  `data: ${
    JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
  }\n\ndata: [DONE]\n\n`,
);
const body = enc.encode(lines.join(""));
const chunks: Uint8Array[] = [];
for (let i = 0; i < body.length; i += 1024) chunks.push(body.subarray(i, i + 1024));

function read(parts: Uint8Array[]): number {
  const d = new SseDecoder(DEFAULT_RESPONSE_LIMITS.maxEventBytes);
  const acc = new ChatAccumulator(DEFAULT_RESPONSE_LIMITS);
  let n = 0;
  for (const p of parts) {
    for (const ev of d.push(p)) {
      if (ev.data === "[DONE]") continue;
      n += acc.push(JSON.parse(ev.data)).length;
    }
  }
  return n + acc.finish().length;
}

Deno.bench("2,000 deltas decoded and accumulated, one body", () => void read([body]));
Deno.bench("2,000 deltas decoded and accumulated, 1 KiB chunks", () => void read(chunks));
