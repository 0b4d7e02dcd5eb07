/**
 * When `scv server` opens its sandbox (spawns the probe): after `initialized` is written, not
 * before, so that the spawn does not delay the handshake; once; and in time for the first
 * `session.started` to report it.
 */
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { serve } from "../../../server/peon/serve.ts";
import { openSandbox } from "../../../server/sandbox/mod.ts";

const enc = new TextEncoder();
const line = (frame: unknown) => enc.encode(JSON.stringify(frame) + "\n");

Deno.test("scv server opens its sandbox once initialized is out, once, before session.started", async () => {
  const order: string[] = [];
  const frames: Record<string, unknown>[] = [];
  const cwd = await Deno.makeTempDir();
  let sent!: () => void;
  const initializedOut = new Promise<void>((resolve) => (sent = resolve));
  let opened!: () => void;
  const sandboxOpened = new Promise<void>((resolve) => (opened = resolve));
  let close!: () => void;
  const done = new Promise<void>((resolve) => (close = resolve));
  const input = new ReadableStream<Uint8Array>({
    async start(c) {
      c.enqueue(line({ type: "initialize", request_id: "1", protocol_version: 1 }));
      await initializedOut;
      // The client says nothing more until the sandbox is open: the handshake alone opened it.
      await sandboxOpened;
      c.enqueue(line({ type: "session.start", request_id: "2", cwd }));
      await done; // EOF once session.started is out
      c.close();
    },
  });
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      for (const text of new TextDecoder().decode(chunk).split("\n").filter(Boolean)) {
        const frame = JSON.parse(text);
        frames.push(frame);
        order.push(frame.type);
        if (frame.type === "initialized") sent();
        if (frame.type === "session.started" || frame.type === "error") close();
      }
    },
  });
  try {
    const status = await serve({
      readable: input,
      writable: output,
      config: { ...DEFAULT_CONFIG, sandbox: "off", persist_sessions: false, checkpoints: false },
      sessions: null,
      log: () => {},
      sandbox: () => {
        order.push("sandbox opened");
        opened();
        return openSandbox({ ...DEFAULT_CONFIG, sandbox: "off" });
      },
    });
    assertEquals(status, 0);
    assertEquals(order, ["initialized", "sandbox opened", "session.started"]);
    const started = frames.find((f) => f.type === "session.started")!;
    assert(started.sandbox !== undefined, JSON.stringify(started));
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a runtime's sandbox opens on first use, once, and not at all after it was closed", async () => {
  const { runtimeLoader } = await import("../../../server/core/runtime.ts");
  let opens = 0;
  const opener = () => {
    opens++;
    return openSandbox({ ...DEFAULT_CONFIG, sandbox: "off" });
  };
  const config = { ...DEFAULT_CONFIG, sandbox: "off" as const };
  const used = runtimeLoader({ config, log: () => {}, sandbox: opener });
  assertEquals(opens, 0);
  const [a, b] = await Promise.all([used.sandbox(), used.sandbox()]);
  assertEquals([opens, a === b], [1, true]);
  await used.closeSandbox();
  const unused = runtimeLoader({ config, log: () => {}, sandbox: opener });
  await unused.closeSandbox();
  const e = await assertRejects(() => unused.sandbox(), Error);
  assertEquals(e.message, "the sandbox was closed");
  assertEquals(opens, 1);
});
