/**
 * In-process tests of the context manager's counting: the `o200k_base` tokenizer is loaded only
 * for a prompt whose upper bound does not fit, and what was learnt before it loaded is kept.
 */
import { assertEquals } from "../../support/assert.ts";
import { createContextManager, type FitPlan } from "../../../server/core/context_manager.ts";
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
