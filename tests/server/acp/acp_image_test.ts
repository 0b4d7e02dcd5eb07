/**
 * `scv acp` takes image prompt content: the ACP SDK's client sends an image block, and the model
 * gets the image byte for byte beside the prompt's text.
 */
import assert from "node:assert/strict";

import { text } from "../../support/mock_openai.ts";
import { makePng } from "../../support/images.ts";
import { withAgent } from "./support.ts";

Deno.test("acp: an image content block reaches the model as an image with the prompt", async () => {
  await withAgent([text("A small picture.")], {}, async (agent, mock) => {
    const init = await agent.initialize();
    assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
    const { sessionId } = await agent.newSession(await agent.workspace());
    const png = makePng({ width: 6, height: 4, seed: 8 });
    const answer = await agent.prompt(sessionId, [
      { type: "text", text: "What is in this picture?" },
      { type: "image", mimeType: "image/png", data: png.toBase64() },
    ]);
    assert.equal(answer.stopReason, "end_turn");
    const user = mock.requests[0]!.body.messages.at(-1)!;
    assert.deepEqual(user.content, [
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png.toBase64()}` } },
    ]);
  });
});
