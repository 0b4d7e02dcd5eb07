/**
 * One request in a fresh worker (server/worker_call.ts): the reply, a failed worker's message,
 * and a cancel that rejects at once and terminates the worker.
 */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { callWorker } from "../../server/worker_call.ts";

const worker = (code: string) => new URL(`data:text/javascript,${encodeURIComponent(code)}`);

Deno.test("a worker's reply is the call's result", async () => {
  assertEquals(
    await callWorker(worker("onmessage = (e) => postMessage(e.data + 1);"), 1, () => 0),
    2,
  );
});

Deno.test("a worker that throws gives the failure's value with its message", async () => {
  const got = await callWorker(
    worker('onmessage = () => { throw new Error("boom"); };'),
    1,
    (message) => `failed: ${message}`,
  );
  assertEquals(got.startsWith("failed: ") && got.includes("boom"), true);
});

Deno.test("an abort rejects with its reason and ends a worker that never answers", async () => {
  const controller = new AbortController();
  // A worker that busy-waits forever: only terminate() ends it (the test's sanitizers check
  // that nothing is left running).
  const call = callWorker(
    worker("onmessage = () => { for (;;) {} };"),
    1,
    () => 0,
    controller.signal,
  );
  setTimeout(() => controller.abort(new Error("cancelled")), 50);
  assertEquals((await assertRejects(() => call, Error)).message, "cancelled");
  const aborted = AbortSignal.abort(new Error("already"));
  assertEquals(
    (await assertRejects(() => callWorker(worker(""), 1, () => 0, aborted), Error)).message,
    "already",
  );
});
