/** Bounded bodies for the Streamable HTTP transport (server/mcp/http_fetch.ts). */
import assert from "node:assert/strict";
import { boundedFetch } from "../../../server/mcp/http_fetch.ts";

function fetchOf(body: string, type: string) {
  return () => Promise.resolve(new Response(body, { headers: { "content-type": type } }));
}

Deno.test("a JSON body at the limit passes and one byte over errors and tells the caller", async () => {
  let told = "";
  const f = (body: string) =>
    boundedFetch({
      maxBytes: 10,
      onOverflow: (m) => told = m,
      base: fetchOf(body, "application/json"),
    });
  assert.equal(await (await f("0123456789")("http://x")).text(), "0123456789");
  assert.equal(told, "");
  await assert.rejects((await f("0123456789A")("http://x")).text(), /more than 10 bytes/);
  assert.equal(told, "it sent a response of more than 10 bytes");
});

Deno.test("an event stream is bounded per event, so many small events pass and one big one does not", async () => {
  let told = "";
  const small = "data: 12345\n\n".repeat(100);
  const ok = boundedFetch({
    maxBytes: 20,
    onOverflow: (m) => told = m,
    base: fetchOf(small, "text/event-stream"),
  });
  assert.equal(await (await ok("http://x")).text(), small);
  assert.equal(told, "");
  const big = boundedFetch({
    maxBytes: 20,
    onOverflow: (m) => told = m,
    base: fetchOf(`data: ${"x".repeat(30)}\n\n`, "text/event-stream"),
  });
  await assert.rejects((await big("http://x")).text());
  assert.equal(told, "it sent a server-sent event of more than 20 bytes");
});

Deno.test("a bodiless answer (202 Accepted) passes through untouched", async () => {
  const f = boundedFetch({
    maxBytes: 1,
    onOverflow: () => assert.fail("no body to bound"),
    base: () => Promise.resolve(new Response(null, { status: 202 })),
  });
  assert.equal((await f("http://x")).status, 202);
});
