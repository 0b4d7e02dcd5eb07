/**
 * `scv acp` under bad input and at its ends: malformed JSON-RPC, unknown sessions and modes,
 * failures, limits, and EOF with work in flight.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { text, toolCalls } from "../../support/mock_openai.ts";
import { withAgent } from "./support.ts";
import { RequestError } from "@agentclientprotocol/sdk";
import { pidsRunning } from "../../support/probes.ts";

/** The JSON-RPC error a request is answered with. */
async function errorOf(request: Promise<unknown>): Promise<RequestError> {
  try {
    await request;
  } catch (e) {
    if (e instanceof RequestError) return e;
    throw e;
  }
  throw new Error("the request succeeded");
}

Deno.test("acp: a line that is not JSON gets -32700 and the connection goes on", async () => {
  await withAgent([], {}, async (agent) => {
    await agent.sendRaw("{this is not json");
    await agent.until(() => agent.responsesTo(null).length === 1);
    assertEquals((agent.responsesTo(null)[0]!.error as { code: number }).code, -32700);
    assertEquals((await agent.initialize()).protocolVersion, 1);
  });
});

Deno.test("acp: a message that is not JSON-RPC gets -32600", async () => {
  await withAgent([], {}, async (agent) => {
    await agent.sendRaw('{"id":1,"method":"initialize"}');
    await agent.sendRaw('[{"jsonrpc":"2.0","id":2,"method":"initialize"}]');
    await agent.until(() => agent.responsesTo(null).length === 2);
    for (const r of agent.responsesTo(null)) {
      assertEquals((r.error as { code: number }).code, -32600);
    }
  });
});

Deno.test("acp: a frame one byte over max_client_frame_bytes gets -32600 and the next one is served", async () => {
  await withAgent([], { config: { max_client_frame_bytes: 200 } }, async (agent) => {
    const pad = (n: number) =>
      JSON.stringify({ jsonrpc: "2.0", method: "x/y", params: { p: "a".repeat(n) } });
    const base = pad(0).length;
    await agent.sendRaw(pad(201 - base));
    await agent.until(() => agent.responsesTo(null).length === 1);
    const [reply] = agent.responsesTo(null);
    assertEquals((reply!.error as { code: number }).code, -32600);
    assertMatch(
      (reply!.error as { message: string }).message,
      /frame of 201 bytes exceeds max_client_frame_bytes \(200\)/,
    );
    assertEquals((await agent.initialize()).protocolVersion, 1);
  });
});

Deno.test("acp: an unknown method gets -32601", async () => {
  await withAgent([], {}, async (agent) => {
    await agent.initialize();
    assertEquals((await errorOf(agent.agent.request("session/teleport", {}))).code, -32601);
  });
});

Deno.test("acp: a request before initialize gets -32600", async () => {
  await withAgent([], {}, async (agent) => {
    const e = await errorOf(agent.newSession("/tmp"));
    assertEquals(e.code, -32600);
    assertMatch(e.message, /initialize/);
  });
});

Deno.test("acp: session/new with missing params or a relative, missing or file cwd gets -32602", async () => {
  await withAgent([], {}, async (agent) => {
    await agent.initialize();
    assertEquals((await errorOf(agent.agent.request("session/new", {}))).code, -32602);
    const ws = await agent.workspace();
    await Deno.writeTextFile(`${ws}/file`, "");
    for (
      const [cwd, why] of [["rel/dir", /absolute/], [`${ws}/nope`, /does not exist/], [
        `${ws}/file`,
        /not a directory/,
      ]] as const
    ) {
      const e = await errorOf(agent.newSession(cwd));
      assertEquals(e.code, -32602);
      assertMatch(e.message, why);
    }
  });
});

Deno.test("acp: a prompt for an unknown session id is an error naming the session", async () => {
  await withAgent([], {}, async (agent) => {
    await agent.initialize();
    const e = await errorOf(agent.prompt("no-such-session", "hi"));
    assertEquals(e.code, -32002);
    assertEquals((e.data as { sessionId: string }).sessionId, "no-such-session");
  });
});

Deno.test("acp: an empty prompt and an image whose bytes are no image get -32602", async () => {
  await withAgent([], {}, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    const empty = await errorOf(agent.prompt(sessionId, "  "));
    assertEquals(empty.code, -32602);
    assertMatch(empty.message, /prompt is empty/);
    const image = await errorOf(
      agent.prompt(sessionId, [
        { type: "text", text: "Look" },
        { type: "image", data: "AA==", mimeType: "image/png" },
      ]),
    );
    assertEquals(image.code, -32602);
    assertMatch(image.message, /attachments\[0\] \("image 1"\): its bytes are not the PNG/);
  });
});

Deno.test("acp: an embedded resource's text reaches the model with the prompt", async () => {
  await withAgent([text("Seen.")], {}, async (agent, mock) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    await agent.prompt(sessionId, [
      { type: "text", text: "What does this do?" },
      { type: "resource", resource: { uri: "file:///x/a.ts", text: "export const answer = 42;" } },
    ]);
    const user = mock.requests[0]!.body.messages.findLast((m) => m.role === "user");
    assertMatch(String(user?.content), /What does this do\?[\s\S]*export const answer = 42;/);
  });
});

// scv 0.3 queues a prompt that arrives while one runs (docs/steering.md); only one past the
// queue's bound of 16 is still refused with -32600.
Deno.test("acp: a prompt past the 16 queued while one runs gets -32600, and the first goes on", async () => {
  const script = (_req: unknown, index: number) =>
    index === 0
      ? {
        kind: "stream" as const,
        events: [{ choices: [{ index: 0, delta: { content: "wait" } }] }],
        hang: true,
      }
      : text("ok");
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    const first = agent.prompt(sessionId, "one");
    await agent.until(() => agent.messageText(sessionId) === "wait");
    const queued = Array.from({ length: 16 }, (_, i) => agent.prompt(sessionId, `queued ${i}`));
    assertEquals((await errorOf(agent.prompt(sessionId, "two"))).code, -32600);
    await agent.agent.notify("session/cancel", { sessionId });
    assertEquals((await first).stopReason, "cancelled");
    assertEquals((await Promise.all(queued)).map((r) => r.stopReason), Array(16).fill("end_turn"));
  });
});

Deno.test("acp: a provider error is a JSON-RPC error with the provider's message", async () => {
  const script = [{
    kind: "status" as const,
    status: 401,
    body: JSON.stringify({ error: { message: "Incorrect API key" } }),
  }];
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    const e = await errorOf(agent.prompt(sessionId, "hi"));
    assertEquals(e.code, -32603);
    assertMatch(e.message, /401.*Incorrect API key/);
    assertEquals((e.data as { reason: string }).reason, "provider_error");
  });
});

Deno.test("acp: step_limit stops the prompt with max_turn_requests", async () => {
  const script = [toolCalls([{ id: "g1", name: "glob", arguments: { pattern: "*" } }])];
  await withAgent(script, { config: { max_steps: 1 } }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "look")).stopReason, "max_turn_requests");
  });
});

Deno.test("acp: set_mode to never runs a write without asking; an unknown mode gets -32602", async () => {
  const script = [
    toolCalls([{ id: "w", name: "write_file", arguments: { path: "m.txt", content: "m" } }]),
    text("ok"),
  ];
  await withAgent(script, {}, async (agent) => {
    await agent.initialize();
    const ws = await agent.workspace();
    const { sessionId, modes } = await agent.newSession(ws);
    assertEquals(modes?.availableModes.map((m) => m.id).sort(), [
      "always",
      "auto",
      "never",
      "on-risk",
      "plan",
    ]);
    const bad = await errorOf(
      agent.agent.request("session/set_mode", { sessionId, modeId: "yolo" }),
    );
    assertEquals(bad.code, -32602);
    await agent.agent.request("session/set_mode", { sessionId, modeId: "never" });
    assertEquals((await agent.prompt(sessionId, "write")).stopReason, "end_turn");
    assertEquals(agent.permissionRequests.length, 0);
    assertEquals(await Deno.readTextFile(`${ws}/m.txt`), "m");
  });
});

Deno.test("acp: EOF during a running command ends the turn, the command and the agent", async () => {
  // A unique duration marks this test's process among all others on the machine.
  const marker = `600.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  const script = [
    toolCalls([{ id: "s", name: "bash", arguments: { command: `exec sleep ${marker}` } }]),
  ];
  // Found by its command line, not by `$$`: inside the sandbox's PID namespace that is a PID of
  // its own, so the test holds with the sandbox on (the default) and off.
  await withAgent(script, { config: { approval_policy: "never" } }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    const answer = agent.prompt(sessionId, "sleep").catch(() => undefined);
    // The command exists before the EOF.
    await agent.until(() => pidsRunning(["sleep", marker]).length === 1);
    const status = await agent.close();
    assertEquals(status.code, 0);
    await answer;
    assertEquals(pidsRunning(["sleep", marker]), []);
  });
});

Deno.test("acp: a delta too large for max_server_frame_bytes stops the prompt with max_tokens", async () => {
  await withAgent([text("x".repeat(6000), { pieceSize: 6000 })], {
    config: { max_server_frame_bytes: 4096 },
  }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "flood")).stopReason, "max_tokens");
    for (const line of agent.lines) assert(new TextEncoder().encode(line).length <= 4096);
  });
});

Deno.test("acp: EOF while a permission is pending ends the turn and the agent", async () => {
  const script = [toolCalls([{ id: "b1", name: "bash", arguments: { command: "touch x" } }])];
  // The client never answers.
  const permission = (_: unknown, signal: AbortSignal) =>
    new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason))
    );
  await withAgent(script, { permission }, async (agent) => {
    await agent.initialize();
    const ws = await agent.workspace();
    const { sessionId } = await agent.newSession(ws);
    const answer = agent.prompt(sessionId, "touch").catch(() => undefined);
    await agent.until(() => agent.permissionRequests.length === 1);
    assertEquals((await agent.close()).code, 0);
    await answer;
    assertEquals(await Deno.stat(`${ws}/x`).then(() => true, () => false), false);
  });
});

Deno.test("acp: trimming the history to max_history_bytes is said on stderr and the turn goes on", async () => {
  await withAgent([text("first answer"), text("second answer")], {
    config: { max_history_bytes: 700 },
  }, async (agent) => {
    await agent.initialize();
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "a".repeat(300))).stopReason, "end_turn");
    assertEquals((await agent.prompt(sessionId, "b".repeat(300))).stopReason, "end_turn");
    await agent.until(() => agent.stderr.includes(`session ${sessionId}: history trimmed`));
    assertMatch(agent.stderr, /messages removed \(\d+ bytes left\)/);
  });
});

Deno.test("acp: the 65th session of a connection is refused with -32600 until one is closed", async () => {
  await withAgent([text("still here")], {}, async (agent) => {
    await agent.initialize();
    const ws = await agent.workspace();
    const ids: string[] = [];
    for (let i = 0; i < 64; i++) ids.push((await agent.newSession(ws)).sessionId);
    assertEquals(new Set(ids).size, 64);
    const e = await errorOf(agent.newSession(ws));
    assertEquals(e.code, -32600);
    assertMatch(e.message, /already has 64 sessions/);
    assertEquals((await agent.prompt(ids[63]!, "hi")).stopReason, "end_turn");
    // Closing one frees its place.
    await agent.agent.request("session/close", { sessionId: ids[0]! });
    assert((await agent.newSession(ws)).sessionId !== ids[0]);
  });
});
