/**
 * In-process tests of the context manager's counting: the `o200k_base` tokenizer is loaded only
 * for a prompt whose upper bound does not fit, and what was learnt before it loaded is kept.
 */
import { assertEquals } from "../../support/assert.ts";
import {
  answerReserve,
  createContextManager,
  type FitPlan,
  minimumAnswerRoom,
} from "../../../server/core/context_manager.ts";
import { REPLY_PRIMING_TOKENS, TokenCounter } from "../../../server/context/mod.ts";
import { type Config, DEFAULT_CONFIG } from "../../../server/config.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

const config = (over: Partial<Config>): Config => ({ ...DEFAULT_CONFIG, ...over });
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 7}`).join(" ");

function history(...contents: string[]): ChatMessage[] {
  return contents.map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content }));
}

function fit(cm: ReturnType<typeof createContextManager>, h: ChatMessage[]): Promise<FitPlan> {
  return cm.fit(h, { turnStart: h.length - 1, systemPrompt: "You are a test.", tools: [] });
}

Deno.test("a prompt whose byte bound fits is planned without the tokenizer", async () => {
  const cm = createContextManager(config({ model: "gpt-4.1-mini" }));
  const h = history("hello there");
  const plan = await fit(cm, h);
  assertEquals(cm.tokenizer, "upper_bound");
  assertEquals(plan.kind, "fits");
  if (plan.kind === "fits") assertEquals(plan.messages.slice(1), h);
});

Deno.test("a prompt the byte bound cannot place is counted with o200k and not compacted when it fits", async () => {
  // ~1,400 o200k tokens but ~5,600 bytes: over the bound (2 × bytes), under the 2,000 available.
  const cm = createContextManager(config({ model: "gpt-4.1-mini", context_max_tokens: 2500 }));
  const plan = await fit(cm, history(words(400), "ok", words(300)));
  assertEquals(cm.tokenizer, "o200k_base");
  assertEquals(plan.kind, "fits", "the real count fits: no compaction");
});

Deno.test("a model without a known tokenizer is estimated from the start", async () => {
  const cm = createContextManager(config({ model: "llama3.1:8b" }));
  await fit(cm, history("hello"));
  assertEquals(cm.tokenizer, "estimate");
});

Deno.test("a size reported before the tokenizer loaded calibrates it once it loads", async () => {
  const model = "gpt-4.1-mini";
  const long = history(words(400), "ok", words(300));
  // Reference: the same prompt, fitted by a manager that never saw a report.
  const fresh = createContextManager(config({ model, context_max_tokens: 2500 }));
  assertEquals((await fit(fresh, long)).kind, "fits");

  const cm = createContextManager(config({ model, context_max_tokens: 2500 }));
  const small = await fit(cm, history("hello there"));
  assertEquals(cm.tokenizer, "upper_bound");
  if (small.kind !== "fits") throw new Error("the small prompt fits");
  // The provider says that small prompt was far bigger than counted: the ratio goes to the top.
  cm.calibrate(small.messages, 100_000);
  const plan = await fit(cm, long);
  assertEquals(cm.tokenizer, "o200k_base");
  assertEquals(plan.kind, "compacted", "the calibrated count no longer fits");
});

Deno.test("a turn past the answer reserve but within the minimum room goes, with earlier turns compacted away", async () => {
  // Estimated: ~2.25 tokens per word. A 2,048 window keeps 409 for the answer (1,639 for the
  // prompt) and at least 128 (1,920): the 750-word turn (~1,700) lies between.
  const cm = createContextManager(config({ model: "llama3.1:8b", context_max_tokens: 2048 }));
  const h = history(words(100), "ok", words(750));
  const plan = await fit(cm, h);
  assertEquals(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assertEquals(plan.history.at(-1), h[2], "the current turn is kept whole");
  const tight = plan.tight!;
  assertEquals(tight.promptTokens, plan.afterTokens);
  assertEquals(tight.answerRoom, 2048 - plan.afterTokens);
  assertEquals(plan.afterTokens > 2048 - answerReserve(2048), true, "past the usual reserve");
  assertEquals(tight.answerRoom >= minimumAnswerRoom(2048), true, "the minimum room is left");
});

Deno.test("by scv's estimate, a turn within the window goes even with little room left for the answer", async () => {
  // ~2,025 estimated tokens of a 2,048 window: the estimate errs high, the provider decides.
  const cm = createContextManager(config({ model: "llama3.1:8b", context_max_tokens: 2048 }));
  const plan = await fit(cm, history(words(900)));
  assertEquals(plan.kind, "fits");
  if (plan.kind !== "fits") return;
  assertEquals(plan.tight?.estimated, true);
  assertEquals(plan.tight!.answerRoom < minimumAnswerRoom(2048), true, JSON.stringify(plan.tight));
});

Deno.test("by scv's estimate, a turn past the whole window fails with context_limit", async () => {
  const cm = createContextManager(config({ model: "llama3.1:8b", context_max_tokens: 2048 }));
  const plan = await fit(cm, history(words(1000)));
  assertEquals(plan.kind, "context_limit");
});

Deno.test("by a tokenizer's count, a turn that leaves the answer less than the minimum room fails with context_limit", async () => {
  const model = "gpt-4.1-mini";
  const counter = await TokenCounter.create(model);
  const system = counter.countMessage({ role: "system", content: "You are a test." });
  const size = (n: number) =>
    system + REPLY_PRIMING_TOKENS + counter.countMessage({ role: "user", content: words(n) });
  // The smallest turn past the window less the minimum room (1,920 of 2,048), within the window.
  let n = 100;
  while (size(n) <= 2048 - minimumAnswerRoom(2048)) n += 5;
  assertEquals(size(n) <= 2048, true, `${n} words: ${size(n)} tokens`);
  const cm = createContextManager(config({ model, context_max_tokens: 2048 }));
  const plan = await fit(cm, history(words(n)));
  assertEquals(cm.tokenizer, "o200k_base");
  assertEquals(plan.kind, "context_limit");
});

Deno.test("a prompt within the usual reserve carries no tight fit", async () => {
  const cm = createContextManager(config({ model: "llama3.1:8b", context_max_tokens: 2048 }));
  const plan = await fit(cm, history(words(100), "ok", words(200)));
  assertEquals(plan.kind, "fits");
  assertEquals(plan.kind === "fits" ? plan.tight : "not fits", undefined);
});
