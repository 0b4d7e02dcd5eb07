/**
 * In-process tests of the context manager's counting: the `o200k_base` tokenizer is loaded only
 * for a prompt whose upper bound does not fit, and what was learnt before it loaded is kept.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { createContextManager } from "../../server/context_manager.ts";
import { type Config, DEFAULT_CONFIG } from "../../server/config.ts";
import { Session } from "../../server/session.ts";
import { ToolRegistry } from "../../server/tools/registry.ts";
import type { ChatMessage } from "../../server/provider/types.ts";

const tools = new ToolRegistry();
const deps = { systemPrompt: "You are a test.", tools };
const config = (over: Partial<Config>): Config => ({ ...DEFAULT_CONFIG, ...over });
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 7}`).join(" ");

function session(...contents: string[]): Session {
  const s = new Session("/tmp");
  contents.forEach((content, i) =>
    s.history.push({ role: i % 2 === 0 ? "user" : "assistant", content })
  );
  return s;
}

async function fit(
  cm: ReturnType<typeof createContextManager>,
  s: Session,
): Promise<{ messages: ChatMessage[]; events: string[] }> {
  const events: string[] = [];
  const messages = await cm.fit(s, { start: s.history.length - 1 }, deps, (e) => {
    events.push(e.type);
    return Promise.resolve();
  }, new AbortController().signal);
  return { messages, events };
}

Deno.test("a prompt whose byte bound fits is planned without the tokenizer", async () => {
  const cm = createContextManager(config({ model: "gpt-4.1-mini" }));
  const s = session("hello there");
  const { messages, events } = await fit(cm, s);
  assertEquals(cm.tokenizer, "upper_bound");
  assertEquals(events, []);
  assertEquals(messages.slice(1), s.history);
});

Deno.test("a prompt the byte bound cannot place is counted with o200k and not compacted when it fits", async () => {
  // ~1,400 o200k tokens but ~5,600 bytes: over the bound (2 × bytes), under the 2,000 available.
  const cm = createContextManager(config({ model: "gpt-4.1-mini", context_max_tokens: 2500 }));
  const s = session(words(400), "ok", words(300));
  const { messages, events } = await fit(cm, s);
  assertEquals(cm.tokenizer, "o200k_base");
  assertEquals(events, [], "the real count fits: no compaction");
  assertEquals(messages.length, 4);
});

Deno.test("a model without a known tokenizer is estimated from the start", async () => {
  const cm = createContextManager(config({ model: "llama3.1:8b" }));
  await fit(cm, session("hello"));
  assertEquals(cm.tokenizer, "estimate");
});

Deno.test("a size reported before the tokenizer loaded calibrates it once it loads", async () => {
  const model = "gpt-4.1-mini";
  const history = [words(400), "ok", words(300)];
  // Reference: the same prompt, fitted by a manager that never saw a report.
  const fresh = createContextManager(config({ model, context_max_tokens: 2500 }));
  assertEquals((await fit(fresh, session(...history))).events, []);

  const cm = createContextManager(config({ model, context_max_tokens: 2500 }));
  const small = await fit(cm, session("hello there"));
  assertEquals(cm.tokenizer, "upper_bound");
  // The provider says that small prompt was far bigger than counted: ratio goes to the top.
  cm.calibrate(small.messages, 100_000);
  const { events } = await fit(cm, session(...history));
  assertEquals(cm.tokenizer, "o200k_base");
  assert(events.includes("context.compacted"), "the calibrated count no longer fits");
});
