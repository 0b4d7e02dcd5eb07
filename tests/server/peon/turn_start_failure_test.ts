/**
 * A turn whose dependencies cannot load still ends with `turn.failed`, also when the reason is
 * longer than the frame limit allows: an in-process {@link Connection}, so the failure can be
 * injected.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { Connection } from "../../../server/peon/connection.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";

Deno.test("a turn whose deps fail with a huge message still ends with a bounded turn.failed", async () => {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const frames: Array<Record<string, unknown>> = [];
  let arrived = Promise.withResolvers<void>();
  let buf = "";
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      buf += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) !== -1) {
        frames.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
        arrived.resolve();
        arrived = Promise.withResolvers<void>();
      }
    },
  });
  const logs: string[] = [];
  const connection = new Connection({
    readable: input.readable,
    writable: output,
    config: { ...DEFAULT_CONFIG, max_server_frame_bytes: 4096 },
    deps: () => Promise.reject(new Error("cannot load AGENTS.md: " + "p".repeat(5000))),
    log: (line) => logs.push(line),
  });
  const done = connection.run();
  const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  const until = async (type: string) => {
    // Each frame wakes the wait; the output ending (the connection is done) ends it too.
    while (!frames.some((f) => f.type === type)) {
      const more = await Promise.race([arrived.promise.then(() => true), done.then(() => false)]);
      if (!more) break;
    }
    const frame = frames.find((f) => f.type === type);
    assert(frame, `no ${type} in ${JSON.stringify(frames).slice(0, 500)}`);
    return frame;
  };
  await send({ type: "initialize", request_id: "1", protocol_version: 1 });
  await until("initialized");
  await send({ type: "session.start", request_id: "2", cwd: Deno.cwd() });
  const { session_id } = await until("session.started");
  await send({ type: "turn.start", request_id: "3", session_id, prompt: "hi" });
  const failed = await until("turn.failed");
  assertEquals(failed.code, "internal_error");
  assert(String(failed.message).startsWith("cannot start the turn: cannot load AGENTS.md: ppp"));
  assert(String(failed.message).length <= 501, `${String(failed.message).length} characters`);
  assertEquals(frames.filter((f) => f.request_id === "3").map((f) => f.type), [
    "turn.started",
    "turn.failed",
  ]);
  await writer.close();
  assertEquals(await done, 0);
  assert(logs.some((l) => l.includes("cannot start the turn")), logs.join("\n"));
});
