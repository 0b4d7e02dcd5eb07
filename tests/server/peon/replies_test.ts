/**
 * Connection-level replies in process (server/peon/replies.ts): an `error` shortened until
 * it fits the frame limit, and a send blocked past its timeout stopping the connection.
 */
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { Replies } from "../../../server/peon/replies.ts";
import { BackpressureTimeoutError, FrameWriter } from "../../../server/peon/writer.ts";

function collecting(maxFrameBytes: number) {
  const frames: Array<Record<string, unknown>> = [];
  const writer = new FrameWriter(
    new WritableStream({
      write: (chunk) => {
        for (const line of new TextDecoder().decode(chunk).split("\n")) {
          if (line) frames.push(JSON.parse(line));
        }
      },
    }),
    { maxFrameBytes },
  );
  const logs: string[] = [];
  let blocked = 0;
  const replies = new Replies({ writer, log: (l) => logs.push(l), onBlocked: () => blocked++ });
  return { frames, writer, logs, replies, blocked: () => blocked };
}

Deno.test("an error that fits goes out whole", async () => {
  const { frames, writer, replies, logs } = collecting(4096);
  await replies.error("7", "invalid_request", "prompt is empty");
  await writer.close();
  assertEquals(frames, [{
    type: "error",
    request_id: "7",
    code: "invalid_request",
    message: "prompt is empty",
    fatal: false,
  }]);
  assertEquals(logs, []);
});

Deno.test("an error too long for a frame goes out with its code and a short message, logged", async () => {
  const { frames, writer, replies, logs } = collecting(120);
  await replies.error("7", "invalid_request", "m".repeat(500));
  await writer.close();
  assertEquals(frames, [{
    type: "error",
    request_id: "7",
    code: "invalid_request",
    message: "see the server log",
    fatal: false,
  }]);
  assert(logs.some((l) => l.includes('a "invalid_request" error did not fit')), logs.join("\n"));
});

Deno.test("an error whose request_id does not fit either goes out without it", async () => {
  const { frames, writer, replies } = collecting(120);
  await replies.error("r".repeat(100), "invalid_request", "bad");
  await writer.close();
  assertEquals(frames, [{
    type: "error",
    code: "invalid_request",
    message: "see the server log",
    fatal: false,
  }]);
});

Deno.test("an error that cannot fit at all is only logged", async () => {
  const { frames, writer, replies, logs } = collecting(40);
  await replies.error("1", "internal_error", "boom");
  await writer.close();
  assertEquals(frames, []);
  assert(logs.some((l) => l.includes("cannot be sent within max_server_frame_bytes")));
});

Deno.test("a reply blocked past the 3 s send timeout stops the connection", async () => {
  // A sink that never finishes a write: the queue fills, and the next reply waits.
  const writer = new FrameWriter(new WritableStream({ write: () => new Promise(() => {}) }), {
    maxFrameBytes: 1024,
    maxFrames: 1,
  });
  let blocked = 0;
  const replies = new Replies({ writer, log: () => {}, onBlocked: () => blocked++ });
  await writer.send({ type: "first" }); // taken by the sink, never written: the queue is full
  await assertRejects(() => replies.send({ type: "second" }), BackpressureTimeoutError);
  assertEquals(blocked, 1);
  await writer.abort();
});
