/**
 * Images in the context: counted by each API's documented rule, and left out oldest first
 * (`[image omitted]` in their place) before trimming or compaction removes any message.
 */
import assert from "node:assert/strict";

import { historyBytes } from "../../../server/context/bytes.ts";
import { planCompaction } from "../../../server/context/compaction.ts";
import { imageTokens } from "../../../server/context/image_tokens.ts";
import { TokenCounter } from "../../../server/context/tokens.ts";
import { trimHistory } from "../../../server/context/trim.ts";
import type { ImagePart } from "../../../server/images/image_part.ts";
import type { ChatMessage } from "../../../server/provider/types.ts";

function image(name: string, size = 1000, width = 100, height = 100): ImagePart {
  return {
    type: "image",
    media_type: "image/png",
    data: "A".repeat(size),
    name,
    bytes: size * 3 / 4,
    width,
    height,
  };
}

Deno.test("Anthropic's rule counts width times height over 750, after scaling to 1568 px and 1.2 MP", () => {
  assert.equal(imageTokens({ width: 200, height: 200 }, "anthropic"), 54);
  assert.equal(imageTokens({ width: 1092, height: 1092 }, "anthropic"), 1590);
  // 4000 x 1000 is scaled to 1568 x 392 first.
  assert.equal(
    imageTokens({ width: 4000, height: 1000 }, "anthropic"),
    Math.ceil(1568 * 392 / 750),
  );
});

Deno.test("OpenAI's rule counts 170 per 512 px tile plus 85 after fitting 2048 and a 768 px short side", () => {
  assert.equal(imageTokens({ width: 1024, height: 1024 }, "openai"), 85 + 170 * 4); // 768 x 768
  assert.equal(imageTokens({ width: 2048, height: 4096 }, "openai"), 85 + 170 * 6); // 768 x 1536
  assert.equal(imageTokens({ width: 100, height: 100 }, "openai"), 85 + 170); // never scaled up
});

Deno.test("a message's tokens include its images by the counter's rule", () => {
  const m: ChatMessage = { role: "user", content: "", images: [image("a.png", 8, 200, 200)] };
  const anthropic = new TokenCounter("claude", { imageRule: "anthropic" });
  const openai = new TokenCounter("local");
  assert.equal(anthropic.countMessage(m), 4 + 54);
  assert.equal(openai.countMessage(m), 4 + 255);
});

Deno.test("trimming leaves out the oldest images first and keeps every message", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "one", images: [image("1.png")] },
    { role: "assistant", content: "ok" },
    { role: "user", content: "two", images: [image("2.png")] },
    { role: "assistant", content: "ok" },
    { role: "user", content: "three", images: [image("3.png")] },
  ];
  const total = historyBytes(history);
  // Room for all but about one image.
  const result = trimHistory(history, { turnStart: 4, maxBytes: total - 900 });
  assert.equal(result.kind, "trimmed");
  if (result.kind !== "trimmed") return;
  assert.equal(result.removedMessages, 0);
  assert.equal(result.history.length, 5);
  assert.deepEqual(result.history[0], { role: "user", content: "one\n[image omitted]" });
  assert.equal(result.history[2], history[2], "the newer image stays");
  assert.equal(result.history[4], history[4]);
  assert(result.historyBytes <= total - 900);
});

Deno.test("trimming drops turns only once no earlier image is left, and never the current turn's", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "one", images: [image("1.png")] },
    { role: "assistant", content: "x".repeat(5000) },
    { role: "user", content: "now", images: [image("now.png")] },
  ];
  const result = trimHistory(history, { turnStart: 2, maxBytes: 1200 });
  assert.equal(result.kind, "trimmed");
  if (result.kind !== "trimmed") return;
  assert.deepEqual(result.history, [history[2]]);
  const limit = trimHistory(history, { turnStart: 2, maxBytes: 500 });
  assert.equal(limit.kind, "history_limit");
});

Deno.test("compaction leaves out the oldest images before it removes a message", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "one", images: [image("1.png")] },
    { role: "assistant", content: "ok" },
    { role: "user", content: "two", images: [image("2.png")] },
    { role: "assistant", content: "ok" },
    { role: "user", content: "three" },
  ];
  const countMessage = (m: ChatMessage) =>
    10 + ((m.role === "user" && m.images?.length) ? 1000 : 0);
  const plan = planCompaction(history, {
    turnStart: 4,
    countMessage,
    fixedTokens: 0,
    maxTokens: 1500,
    targetTokens: 1100,
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assert.equal(plan.removedMessages, 0);
  assert.equal(plan.beforeTokens, 2050);
  assert.equal(plan.afterTokens, 1050);
  assert.deepEqual(plan.history[0], { role: "user", content: "one\n[image omitted]" });
  assert.equal(plan.history[2], history[2]);
});

Deno.test("compaction removes messages when leaving out every old image is not enough", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "one", images: [image("1.png")] },
    { role: "assistant", content: "long" },
    { role: "user", content: "two" },
  ];
  const countMessage = (m: ChatMessage) =>
    (m.content === "long" ? 5000 : 10) + ((m.role === "user" && m.images?.length) ? 1000 : 0);
  const plan = planCompaction(history, {
    turnStart: 2,
    countMessage,
    fixedTokens: 0,
    maxTokens: 1000,
  });
  assert.equal(plan.kind, "compacted");
  if (plan.kind !== "compacted") return;
  assert.equal(plan.beforeTokens, 6020);
  assert.equal(plan.removedMessages, 2);
  assert(!JSON.stringify(plan.history).includes("AAAA"));
});
