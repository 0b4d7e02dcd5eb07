/**
 * The example frames of docs/acp.md are real: each request and notification passes the SDK's own
 * schema unchanged (its handlers receive exactly the documented params), and the documented
 * answers are the ones scv gives.
 */
import * as acp from "@agentclientprotocol/sdk";
import { assert, assertEquals } from "../../support/assert.ts";
import { agentCapabilities } from "../../../server/acp/agent.ts";
import { promptAnswer } from "../../../server/acp/stop_reason.ts";
import { PERMISSION_OPTIONS } from "../../../server/acp/permissions.ts";
import { SCV_VERSION } from "../../../protocol/constants.ts";

type Frame = Record<string, unknown> & { jsonrpc: "2.0" };

/** Every JSON-RPC frame in the document's json code blocks (one per block, or one per line). */
async function docFrames(): Promise<Frame[]> {
  const text = await Deno.readTextFile(new URL("../../../docs/acp.md", import.meta.url));
  const frames: Frame[] = [];
  for (const [, block] of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    let values: unknown[];
    try {
      values = [JSON.parse(block!)];
    } catch {
      values = block!.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
    }
    for (const v of values) {
      if ((v as { jsonrpc?: unknown }).jsonrpc === "2.0") frames.push(v as Frame);
    }
  }
  return frames;
}

/**
 * The delivered params, or a failure when the SDK refused the frame (then no handler runs: the
 * guard ends the wait instead of a hang).
 */
async function delivered(got: Promise<unknown>, frame: Frame): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refused = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the SDK did not deliver ${JSON.stringify(frame)}`)),
      30_000,
    );
  });
  try {
    return await Promise.race([got, refused]);
  } finally {
    clearTimeout(timer);
  }
}

/** A stream pair for an SDK app: what the test writes in, and what the app writes out. */
function pipe() {
  const toApp = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const fromApp = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  // What the app writes is drained (its replies are not under test here).
  void fromApp.readable.pipeTo(new WritableStream()).catch(() => {});
  return {
    stream: { readable: toApp.readable, writable: fromApp.writable },
    input: toApp.writable.getWriter(),
  };
}

/** The params an SDK client's handlers receive for an agent → client frame. */
async function throughClient(frame: Frame): Promise<unknown> {
  const got = Promise.withResolvers<unknown>();
  const { stream, input } = pipe();
  const app = acp.client({ name: "doc-check" })
    .onNotification("session/update", ({ params }) => got.resolve(params))
    .onRequest("session/request_permission", ({ params }) => {
      got.resolve(params);
      return { outcome: { outcome: "cancelled" } };
    });
  const connection = app.connect(stream);
  await input.write(frame as acp.AnyMessage);
  try {
    return await delivered(got.promise, frame);
  } finally {
    connection.close();
  }
}

/** The params an SDK agent's handler receives for a client → agent request. */
async function throughAgent(frame: Frame): Promise<unknown> {
  const got = Promise.withResolvers<unknown>();
  const { stream, input } = pipe();
  const app = acp.agent({ name: "doc-check" })
    .onRequest("initialize", () => ({ protocolVersion: 1 }))
    .onRequest("session/prompt", ({ params }) => {
      got.resolve(params);
      return { stopReason: "end_turn" };
    });
  const connection = app.connect(stream);
  await input.write({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: 1 },
  });
  await input.write(frame as acp.AnyMessage);
  try {
    return await delivered(got.promise, frame);
  } finally {
    connection.close();
  }
}

Deno.test("docs/acp.md shows at least one frame of each kind it documents", async () => {
  const frames = await docFrames();
  const methods = frames.map((f) => f.method ?? ("result" in f ? "result" : "error"));
  for (
    const m of ["session/update", "session/request_permission", "session/prompt", "result", "error"]
  ) {
    assert(methods.includes(m), `no ${m} frame in docs/acp.md: ${methods.join()}`);
  }
});

Deno.test("docs/acp.md's updates and permission requests pass the SDK client's schema unchanged", async () => {
  for (const frame of await docFrames()) {
    if (frame.method !== "session/update" && frame.method !== "session/request_permission") {
      continue;
    }
    assertEquals(await throughClient(frame), frame.params, JSON.stringify(frame));
  }
});

Deno.test("docs/acp.md's prompt request passes the SDK agent's schema unchanged", async () => {
  for (const frame of await docFrames()) {
    if (frame.method !== "session/prompt") continue;
    assertEquals(await throughAgent(frame), frame.params);
  }
});

Deno.test("docs/acp.md's initialize answer is the one scv gives", async () => {
  const answer = (await docFrames()).find((f) =>
    "result" in f && "protocolVersion" in (f.result as object)
  );
  assertEquals(answer?.result, {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: agentCapabilities(true),
    agentInfo: { name: "scv", title: "scv", version: SCV_VERSION },
    authMethods: [],
  });
});

Deno.test("docs/acp.md's prompt error is the one scv gives for a provider error", async () => {
  const frame = (await docFrames()).find((f) => "error" in f)!;
  const error = frame.error as { message: string };
  assertEquals(
    { error: frame.error } as unknown,
    promptAnswer({ type: "turn.failed", code: "provider_error", message: error.message }),
  );
});

Deno.test("docs/acp.md's permission request offers scv's options", async () => {
  const frame = (await docFrames()).find((f) => f.method === "session/request_permission")!;
  assertEquals((frame.params as { options: unknown }).options, [...PERMISSION_OPTIONS]);
});
