/**
 * scv's own count of the context (ContextManager.count), the status line's figure when the
 * provider reports no usage: absent before anything was counted, then the prompt's tokens.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { createContextManager } from "../../../server/core/context_manager.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

const cm = () => createContextManager({ ...DEFAULT_CONFIG, model: "gpt-4.1-mini" });
const options = { systemPrompt: "You are scv.", tools: [] };

Deno.test("the context count is absent before the first fit counted anything", () => {
  assertEquals(cm().count?.([{ role: "user", content: "hi" }], options), undefined);
});

Deno.test("after a fit the context count grows with the history", async () => {
  const c = cm();
  const history: ChatMessage[] = [{ role: "user", content: "hello there" }];
  await c.fit(history, { turnStart: 0, ...options });
  const short = c.count!(history, options)!;
  assert(short > 0, `${short}`);
  const longer: ChatMessage[] = [...history, { role: "assistant", content: "word ".repeat(500) }];
  assert(c.count!(longer, options)! > short + 400, `${c.count!(longer, options)}`);
});
