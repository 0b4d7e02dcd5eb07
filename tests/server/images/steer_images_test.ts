/**
 * `turn.steer.attachments` against the real `scv server` (scv 0.3, docs/images.md): a steer's
 * image, by path or inline, reaches the model with the steer's text in the next request; a bad
 * one is `invalid_request` naming it and the turn goes on; a steer and a queued prompt killed
 * while waiting come back on resume with their images' names.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { makeJpeg, makePng } from "../../support/images.ts";
import { type Ev, type ServerProcess, withServer } from "../../support/server_process.ts";
import {
  sessionFile,
  startServer,
  startSession,
  withRecording,
  withServer as withRecordingServer,
} from "../sessions/support.ts";

const held = { config: { approval_policy: "always" as const } };

/** Starts a turn that asks to run `true` and waits for its approval. */
async function heldTurn(p: ServerProcess, sessionId: string) {
  const t = await p.startTurn(sessionId, "run true", "t1");
  const approval = await p.next((e) => e.type === "approval.requested" && e.turn_id === t.turn_id);
  return { t, approval };
}

async function ask(p: ServerProcess, message: Record<string, unknown>): Promise<Ev> {
  await p.send(message);
  return await p.next((e) => e.request_id === message.request_id);
}

Deno.test("a steer's images, by path and inline, reach the model with its text", async () => {
  const png = makePng({ width: 5, height: 4, seed: 9 });
  const jpeg = makeJpeg(3, 2);
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("I see them"),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId, cwd } = await p.open();
    await Deno.writeFile(`${cwd}/shot.png`, png);
    const { t, approval } = await heldTurn(p, sessionId);
    const accepted = await ask(p, {
      type: "turn.steer",
      request_id: "s1",
      session_id: sessionId,
      turn_id: t.turn_id,
      prompt: "compare these",
      attachments: [
        { type: "image", path: "shot.png" },
        { type: "image", media_type: "image/jpeg", data: jpeg.toBase64(), name: "mock.jpg" },
      ],
    });
    assertEquals(accepted.type, "turn.steer.accepted");
    await p.send({
      type: "approval.resolve",
      request_id: "a1",
      session_id: sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
    const steered = p.eventOf(t.turn_id, "user.steered");
    assertEquals(steered.images, ["shot.png", "mock.jpg"]);
    assertEquals(mock.requests.length, 2);
    // The first request went out before the steer; the second ends with it, bytes intact.
    assert(!JSON.stringify(mock.requests[0]!.body).includes("image_url"));
    assertEquals(mock.requests[1]!.body.messages.at(-1), {
      role: "user",
      content: [
        { type: "text", text: "compare these" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png.toBase64()}` } },
        { type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.toBase64()}` } },
      ],
    });
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a steer with a bad attachment is refused naming it, and the turn goes on", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("done"),
  ]);
  await withServer(mock, held, async (p) => {
    const { sessionId, cwd } = await p.open();
    await Deno.writeFile(`${cwd}/fake.png`, makeJpeg());
    const { t, approval } = await heldTurn(p, sessionId);
    const steer = { type: "turn.steer", session_id: sessionId, turn_id: t.turn_id };
    const wrong = await ask(p, {
      ...steer,
      request_id: "s1",
      prompt: "see",
      attachments: [{ type: "image", path: "fake.png" }],
    });
    assertEquals([wrong.type, wrong.code], ["error", "invalid_request"]);
    assertEquals(
      wrong.message,
      `attachments[0] ("fake.png"): its bytes are JPEG, not the PNG it claims to be`,
    );
    const outside = await ask(p, {
      ...steer,
      request_id: "s2",
      prompt: "see",
      attachments: [{ type: "image", path: "/etc/hostname" }],
    });
    assertEquals([outside.type, outside.code], ["error", "invalid_request"]);
    assert(String(outside.message).startsWith(`attachments[0] ("hostname"): `), outside.message);
    await p.send({
      type: "approval.resolve",
      request_id: "a1",
      session_id: sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
    // Nothing of the refused steers entered.
    assertEquals(p.turnEvents(t.turn_id).filter((e) => e.type === "user.steered"), []);
    assert(!JSON.stringify(mock.requests[1]!.body).includes("image_url"));
  });
});

Deno.test("a steer and a queued prompt with images killed while waiting come back by name", async () => {
  const png = makePng({ width: 2, height: 2, seed: 1 }).toBase64();
  await withRecording([
    toolCalls([{ name: "bash", arguments: { command: "true" } }]),
    text("later"),
  ], async ({ mock, state, cwd }) => {
    const a = await startServer(state, mock.baseUrl, held);
    let id: string;
    try {
      id = (await startSession(a, cwd)).session_id;
      const t = await a.startTurn(id, "run true");
      await a.next((e) => e.type === "approval.requested" && e.turn_id === t.turn_id);
      const image = { type: "image", media_type: "image/png", data: png };
      const steered = await ask(a, {
        type: "turn.steer",
        request_id: "s1",
        session_id: id,
        turn_id: t.turn_id,
        prompt: "see this",
        attachments: [{ ...image, name: "a.png" }],
      });
      assertEquals(steered.type, "turn.steer.accepted");
      const queued = await ask(a, {
        type: "turn.start",
        request_id: "q1",
        session_id: id,
        prompt: "then this",
        queue: true,
        attachments: [{ ...image, name: "b.png" }, { ...image, name: "c.png" }],
      });
      assertEquals(queued.type, "turn.queued");
    } finally {
      await a.kill(); // SIGKILL while both wait
    }
    await withRecordingServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assertEquals(resumed.queued, [
        { request_id: "s1", prompt: "see this", kind: "steer", images: ["a.png"] },
        { request_id: "q1", prompt: "then this", kind: "queue", images: ["b.png", "c.png"] },
      ]);
      assertEquals(b.schemaErrors, []);
    });
    // The record keeps the names, not the bytes.
    const record = await Deno.readTextFile(sessionFile(state, id));
    assert(record.includes(`"images":["b.png","c.png"]`), "the record names the images");
    assert(!record.includes(png), "no image bytes in the record");
  });
});
