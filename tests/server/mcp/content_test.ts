/** What the model sees of an MCP tool result (server/mcp/content.ts). */
import assert from "node:assert/strict";
import { MAX_CONTENT_ITEMS, resultText } from "../../../server/mcp/content.ts";

Deno.test("text items are joined with newlines", () => {
  const r = resultText(
    { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
    100,
  );
  assert.deepEqual(r, { text: "a\nb", truncated: false });
});

Deno.test("images, audio, resources and links are described in one line each", () => {
  const r = resultText({
    content: [
      { type: "image", mimeType: "image/png", data: "AAAAAAAA" },
      { type: "audio", mimeType: "audio/wav", data: "AAAA" },
      {
        type: "resource",
        resource: { uri: "file:///b.bin", mimeType: "application/zip", blob: "AA" },
      },
      { type: "resource_link", uri: "file:///x.txt", name: "x" },
      { type: "hologram" },
    ],
  }, 1000);
  assert.deepEqual(r.text.split("\n"), [
    "[image image/png, 6 bytes]",
    "[audio audio/wav, 3 bytes]",
    "[resource file:///b.bin application/zip, binary]",
    "[resource link file:///x.txt (x)]",
    "[hologram content]",
  ]);
});

Deno.test("an embedded text resource is named and included", () => {
  const r = resultText({
    content: [{ type: "resource", resource: { uri: "mem://n", text: "body" } }],
  }, 100);
  assert.equal(r.text, "[resource mem://n]\nbody");
});

Deno.test("structuredContent stands in when there is no content", () => {
  assert.equal(resultText({ structuredContent: { n: 1 } }, 100).text, '{"n":1}');
});

Deno.test("output over the byte limit is cut and marked truncated", () => {
  const r = resultText({ content: [{ type: "text", text: "x".repeat(10000) }] }, 1000);
  assert.equal(r.truncated, true);
  assert.ok(new TextEncoder().encode(r.text).length <= 1000);
});

Deno.test("more content items than the item bound are counted, not rendered", () => {
  const content = Array.from({ length: MAX_CONTENT_ITEMS + 5 }, () => ({ type: "text", text: "" }));
  const r = resultText({ content }, 1_000_000);
  assert.ok(r.text.endsWith("[5 more content items]"), r.text.slice(-40));
});
