import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { promptText } from "../../../server/acp/prompt_content.ts";
import { utf8Length } from "../../../server/utf8.ts";

Deno.test("text blocks make the prompt, with a space where two would run together", () => {
  const r = promptText([
    { type: "text", text: "Fix" },
    { type: "text", text: "the test" },
    { type: "text", text: " please" },
  ], 1024);
  assertEquals(r, { ok: true, text: "Fix the test please", images: [] });
});

Deno.test("a resource link stays inline as a markdown link", () => {
  const r = promptText([
    { type: "text", text: "Look at" },
    { type: "resource_link", name: "a.ts", uri: "file:///ws/a.ts" },
  ], 1024);
  assertEquals(r, { ok: true, text: "Look at [a.ts](file:///ws/a.ts)", images: [] });
});

Deno.test("an embedded resource's text is attached after the prompt as a context section", () => {
  const r = promptText([
    { type: "text", text: "Explain" },
    { type: "resource", resource: { uri: "file:///ws/a.ts", text: "let a = 1;" } },
  ], 1024);
  assertEquals(r, {
    ok: true,
    text: 'Explain [file:///ws/a.ts]\n\n<context uri="file:///ws/a.ts">\nlet a = 1;\n</context>',
    images: [],
  });
});

Deno.test("a resource over the room left is cut to fit the prompt limit, and says so", () => {
  const limit = 300;
  const r = promptText([
    { type: "text", text: "Summarise" },
    { type: "resource", resource: { uri: "file:///big.txt", text: "é".repeat(1000) } },
  ], limit);
  assert(r.ok);
  assert(utf8Length(r.text) <= limit, `${utf8Length(r.text)} bytes`);
  assertMatch(r.text, /\[\.\.\. cut: \d+ of 2000 bytes attached\]\n<\/context>$/);
});

Deno.test("a prompt exactly at the limit with its resource passes whole", () => {
  const blocks = [
    { type: "text" as const, text: "Read" },
    { type: "resource" as const, resource: { uri: "u", text: "abc" } },
  ];
  const whole = promptText(blocks, 1 << 20);
  assert(whole.ok);
  assertEquals(promptText(blocks, utf8Length(whole.text)), whole);
  const smaller = promptText(blocks, utf8Length(whole.text) - 1);
  assert(
    smaller.ok && smaller.text !== whole.text && utf8Length(smaller.text) < utf8Length(whole.text),
  );
});

Deno.test("a resource with no room left at all is named, not attached", () => {
  const r = promptText([
    { type: "text", text: "x".repeat(55) },
    { type: "resource", resource: { uri: "u1", text: "y".repeat(100) } },
  ], 64);
  assertEquals(r, { ok: true, text: "x".repeat(55) + " [u1]", images: [] });
});

Deno.test("typed text over max_prompt_bytes is refused with its size", () => {
  const r = promptText([{ type: "text", text: "a".repeat(11) }], 10);
  assertEquals(r, { ok: false, message: "prompt of 11 bytes exceeds max_prompt_bytes (10)" });
  assertEquals(promptText([{ type: "text", text: "a".repeat(10) }], 10).ok, true);
});

Deno.test("an empty or whitespace-only prompt is refused", () => {
  assertEquals(promptText([], 10), { ok: false, message: "prompt is empty" });
  assertEquals(promptText([{ type: "text", text: " \n\t" }], 10), {
    ok: false,
    message: "prompt is empty",
  });
});

Deno.test("an image block becomes an inline attachment named by its uri", () => {
  const r = promptText([
    { type: "text", text: "What is this" },
    { type: "image", data: "AA==", mimeType: "image/png", uri: "file:///ws/shot%201.png" },
  ], 1024);
  assertEquals(r, {
    ok: true,
    text: "What is this",
    images: [{ type: "image", media_type: "image/png", data: "AA==", name: "shot 1.png" }],
  });
});

Deno.test("an image block of another type and an audio block are refused", () => {
  const bmp = promptText([{ type: "image", data: "AA==", mimeType: "image/bmp" }], 1024);
  assertEquals(bmp, {
    ok: false,
    message:
      `image 1: mimeType "image/bmp" is not one of image/png, image/jpeg, image/gif, image/webp`,
  });
  const audio = promptText([{ type: "audio", data: "AA==", mimeType: "audio/wav" }], 1024);
  assertEquals(audio, {
    ok: false,
    message: "audio content is not supported: scv's promptCapabilities.audio is false",
  });
});

Deno.test("a binary resource is named in the prompt but its bytes are not attached", () => {
  const r = promptText([
    { type: "text", text: "What is this" },
    { type: "resource", resource: { uri: "file:///a.png", blob: "AAAA", mimeType: "image/png" } },
  ], 1024);
  assertEquals(r, {
    ok: true,
    text: "What is this [file:///a.png] (binary image/png, not attached)",
    images: [],
  });
});
