/**
 * Context management on a 5,000-message history: the cost of a step when every per-message
 * count and size is cached ("warm"), against the first pass that fills the caches ("cold").
 *
 * Run: `deno bench --no-prompt bench/context_bench.ts`
 *
 * @module
 */
import { historyBytes } from "../server/context/bytes.ts";
import { planCompaction } from "../server/context/compaction.ts";
import { TokenCounter } from "../server/context/tokens.ts";
import { trimHistory } from "../server/context/trim.ts";
import type { ChatMessage } from "../server/provider/types.ts";

const MESSAGES = 5_000;

/** Turns of: prompt, a tool call, its ~2 KiB result, an answer. */
function makeHistory(): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let t = 0; history.length < MESSAGES - 1; t++) {
    const id = `call_${t}`;
    history.push({ role: "user", content: `Turn ${t}: look at src/module_${t}.ts and fix it` });
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{
        id,
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify({ path: `src/module_${t}.ts` }) },
      }],
    });
    history.push({
      role: "tool",
      tool_call_id: id,
      content: `export function f${t}(x: number): number {\n  return x * ${t};\n}\n`.repeat(40),
    });
    history.push({ role: "assistant", content: `Fixed module ${t}. The bug was an off-by-one.` });
  }
  history.length = MESSAGES - 1;
  history.push({ role: "user", content: "current turn" });
  return history;
}

const counter = await TokenCounter.create("gpt-4.1-mini");
const history = makeHistory();
const turnStart = history.length - 1;
const historyTokens = counter.countPrompt(history, 0, 0); // fills the token cache
const options = {
  turnStart,
  countMessage: counter.countMessage,
  fixedTokens: 2_000,
  maxTokens: 128_000,
};
historyBytes(history); // fills the size cache
console.error(
  `${MESSAGES} messages, ${historyTokens} tokens, ${
    historyBytes(history)
  } bytes (${counter.tokenizer})`,
);

Deno.bench("historyBytes, 5,000 messages, cold", { group: "bytes", n: 50 }, (b) => {
  const fresh = history.map((m) => ({ ...m }));
  b.start();
  historyBytes(fresh);
  b.end();
});

Deno.bench("historyBytes, 5,000 messages, cached", { group: "bytes", baseline: true }, () => {
  historyBytes(history);
});

Deno.bench("trimHistory to 1 MiB, 5,000 messages, cached", { group: "bytes" }, () => {
  trimHistory(history, { turnStart, maxBytes: 1 << 20 });
});

Deno.bench("planCompaction, 5,000 messages, cold counter", { group: "tokens", n: 10 }, (b) => {
  const fresh = new TokenCounter(counter.model, { countText: (t) => counter.countText(t) });
  b.start();
  planCompaction(history, { ...options, countMessage: fresh.countMessage });
  b.end();
});

Deno.bench("planCompaction, 5,000 messages, cached", { group: "tokens", baseline: true }, () => {
  planCompaction(history, options);
});

Deno.bench("countPrompt after one new message, cached", { group: "tokens" }, (b) => {
  const grown = [...history, { role: "assistant" as const, content: "One more step." }];
  b.start();
  counter.countPrompt(grown, 0, 0);
  b.end();
});
