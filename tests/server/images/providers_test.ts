/**
 * Images reach each API in its own shape through the real server against its scripted server:
 * Chat Completions `image_url` data URLs, Anthropic `image` blocks, Responses `input_image`;
 * byte for byte on the first request and again after a tool call; a model that refuses images
 * fails the turn with the provider's message after one request (never retried without them);
 * a PNG or JPEG past an API's pixel limit goes out scaled down, and a corrupt one fails the turn
 * before anything is sent.
 */
import assert from "node:assert/strict";

import type { Config } from "../../../server/config.ts";
import {
  MockOpenAI,
  type MockReply,
  type MockRequest,
  text,
  toolCalls,
} from "../../support/mock_openai.ts";
import { type Ev, withServer } from "../../support/server_process.ts";
import { makePng } from "../../support/images.ts";
import { imageSize } from "../../../server/images/format.ts";
import jpegModule from "jpeg-js";
import { ANTHROPIC, RESPONSES } from "../provider/api_dialects.ts";

type Item = Record<string, unknown>;

const jpegJs = (jpegModule as unknown as { default?: typeof jpegModule }).default ?? jpegModule;

interface Api {
  name: string;
  provider: Config["provider"];
  text: (s: string) => MockReply;
  readFile: (path: string) => MockReply;
  /** The first user message of a request, as the API carries it. */
  firstUser: (body: MockRequest["body"]) => Item;
  /** The user message with an attached image, exactly as this API wants it. */
  userWithImage: (prompt: string, base64: string) => Item;
  /** Whether the request ends with a tool result (the follow-up of the call). */
  followUp: (body: MockRequest["body"]) => boolean;
}

const items = (body: MockRequest["body"]) => (body.messages ?? body.input) as Item[];

const APIS: Api[] = [
  {
    name: "Chat Completions",
    provider: "openai-chat",
    text: (s) => text(s),
    readFile: (path) => toolCalls([{ id: "call_1", name: "read_file", arguments: { path } }]),
    firstUser: (b) => items(b).find((m) => m.role === "user")!,
    userWithImage: (prompt, b64) => ({
      role: "user",
      content: [
        { type: "text", text: prompt },
        { type: "image_url", image_url: { url: `data:image/png;base64,${b64}` } },
      ],
    }),
    followUp: (b) => items(b).some((m) => m.role === "tool"),
  },
  {
    name: "Anthropic",
    provider: "anthropic",
    text: (s) => ANTHROPIC.text(s),
    readFile: (path) => ANTHROPIC.tools([{ name: "read_file", arguments: { path } }]),
    firstUser: (b) => items(b).find((m) => m.role === "user")!,
    userWithImage: (prompt, b64) => ({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: b64 } },
        { type: "text", text: prompt },
      ],
    }),
    followUp: (b) =>
      items(b).some((m) =>
        Array.isArray(m.content) && (m.content as Item[]).some((c) => c.type === "tool_result")
      ),
  },
  {
    name: "Responses",
    provider: "openai-responses",
    text: (s) => RESPONSES.text(s),
    readFile: (path) => RESPONSES.tools([{ name: "read_file", arguments: { path } }]),
    firstUser: (b) => items(b).find((m) => m.role === "user")!,
    userWithImage: (prompt, b64) => ({
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: prompt },
        { type: "input_image", image_url: `data:image/png;base64,${b64}` },
      ],
    }),
    followUp: (b) => items(b).some((m) => m.type === "function_call_output"),
  },
];

async function withApi(
  api: Api,
  script: (req: MockRequest, index: number) => MockReply,
  fn: (ctx: {
    mock: MockOpenAI;
    turn: (prompt: string, attachments: unknown[]) => Promise<{ done: Ev; events: Ev[] }>;
    cwd: string;
  }) => Promise<void>,
): Promise<void> {
  const mock = await MockOpenAI.start(script);
  await withServer(mock, {
    config: { provider: api.provider, model: "m-1", approval_policy: "never" },
  }, async (server) => {
    const { sessionId, cwd } = await server.open();
    let n = 0;
    const turn = async (prompt: string, attachments: unknown[]) => {
      const request_id = `t${n++}`;
      await server.send({
        type: "turn.start",
        request_id,
        session_id: sessionId,
        prompt,
        attachments,
      });
      const first = await server.next((e) => e.request_id === request_id);
      if (first.type === "error") return { done: first, events: [first] };
      const done = await server.terminal(first.turn_id);
      return { done, events: server.turnEvents(first.turn_id) };
    };
    await fn({ mock, turn, cwd });
  });
}

for (const api of APIS) {
  Deno.test(`${api.name}: an attached PNG goes out in the API's shape, byte for byte, also after a tool call`, async () => {
    const png = makePng({ width: 7, height: 5, seed: 11 });
    const b64 = png.toBase64();
    await withApi(
      api,
      (req) => api.followUp(req.body) ? api.text("It is a small image.") : api.readFile("a.txt"),
      async ({ mock, turn, cwd }) => {
        await Deno.writeTextFile(`${cwd}/a.txt`, "alpha");
        const { done } = await turn("What is in this picture?", [
          { type: "image", media_type: "image/png", data: b64, name: "shot.png" },
        ]);
        assert.equal(done.type, "turn.completed", JSON.stringify(done));
        assert.equal(mock.requests.length, 2);
        for (const req of mock.requests) {
          const user = api.firstUser(req.body);
          assert.deepEqual(user, api.userWithImage("What is in this picture?", b64));
        }
        // Byte for byte: the data the server sent decodes to the PNG attached.
        const sent = JSON.stringify(api.firstUser(mock.requests[1]!.body)).match(
          /([A-Za-z0-9+/]{40,}=*)/,
        )![1]!;
        assert.deepEqual(Uint8Array.fromBase64(sent), png);
      },
    );
  });

  Deno.test(`${api.name}: an attachment by workspace path is read by the server and sent`, async () => {
    const png = makePng({ width: 2, height: 2, seed: 5 });
    await withApi(api, () => api.text("ok"), async ({ mock, turn, cwd }) => {
      await Deno.writeFile(`${cwd}/shot.png`, png);
      const { done } = await turn("Look", [{ type: "image", path: "shot.png" }]);
      assert.equal(done.type, "turn.completed");
      assert.deepEqual(
        api.firstUser(mock.requests[0]!.body),
        api.userWithImage("Look", png.toBase64()),
      );
    });
  });

  Deno.test(`${api.name}: a model that refuses images fails the turn with its own message, once`, async () => {
    const message = api.provider === "anthropic"
      ? "this model does not support image input"
      : "image_url is only supported by certain models";
    const body = api.provider === "anthropic"
      ? JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } })
      : JSON.stringify({ error: { message, type: "invalid_request_error" } });
    await withApi(api, () => ({ kind: "status", status: 400, body }), async ({ mock, turn }) => {
      const { done } = await turn("Look", [
        { type: "image", media_type: "image/png", data: makePng().toBase64() },
      ]);
      assert.equal(done.type, "turn.failed");
      assert.equal(done.code, "provider_error");
      assert(String(done.message).includes(message), done.message);
      // Not retried, and certainly not without the image.
      assert.equal(mock.requests.length, 1);
    });
  });
}

Deno.test("Ollama's refusal of images fails the turn with its message", async () => {
  const message = "this model is missing data required for image input";
  await withApi(APIS[0]!, () => ({
    kind: "status",
    status: 500,
    body: JSON.stringify({ error: { message, type: "api_error" } }),
  }), async ({ mock, turn }) => {
    const { done } = await turn("Look", [
      { type: "image", media_type: "image/png", data: makePng().toBase64() },
    ]);
    assert.equal(done.code, "provider_error");
    assert(String(done.message).includes(message), done.message);
    for (const req of mock.requests) {
      assert(JSON.stringify(req.body).includes("image_url"), "every attempt carried the image");
    }
  });
});

Deno.test("a PNG and a JPEG wider than 8000 px go to Anthropic scaled down to 8000 px", async () => {
  const wide = makePng({ width: 8001, height: 3, seed: 5 });
  const raw = { width: 9000, height: 4, data: new Uint8Array(9000 * 4 * 4).fill(128) };
  const jpeg = new Uint8Array(jpegJs.encode(raw, 90).data);
  await withApi(APIS[1]!, () => APIS[1]!.text("small enough"), async ({ mock, turn }) => {
    const { done } = await turn("Look", [
      { type: "image", media_type: "image/png", data: wide.toBase64(), name: "wide.png" },
      { type: "image", media_type: "image/jpeg", data: jpeg.toBase64(), name: "wide.jpg" },
    ]);
    assert.equal(done.type, "turn.completed", JSON.stringify(done));
    assert.equal(mock.requests.length, 1);
    const blocks = (APIS[1]!.firstUser(mock.requests[0]!.body).content as Item[])
      .filter((c) => c.type === "image")
      .map((c) => c.source as { media_type: "image/png" | "image/jpeg"; data: string });
    assert.deepEqual(blocks.map((b) => b.media_type), ["image/png", "image/jpeg"]);
    const sizes = blocks.map((b) => imageSize(Uint8Array.fromBase64(b.data), b.media_type));
    assert.deepEqual(sizes, [{ width: 8000, height: 3 }, { width: 8000, height: 4 }]);
  });
});

Deno.test("a corrupt PNG wider than 8000 px fails the turn clearly before anything is sent", async () => {
  const bad = makePng({ width: 8001, height: 2 });
  for (let i = 41; i < bad.length - 20; i++) bad[i] = 0x5a;
  await withApi(APIS[1]!, () => APIS[1]!.text("never"), async ({ mock, turn }) => {
    const { done } = await turn("Look", [
      { type: "image", media_type: "image/png", data: bad.toBase64(), name: "broken.png" },
    ]);
    assert.equal(done.type, "turn.failed");
    assert.equal(done.code, "provider_error");
    assert.match(
      done.message,
      /"broken.png" is 8001x2 px, over the 8000 px a side the Anthropic API takes, and it cannot be scaled down: its PNG data cannot be/,
    );
    assert.equal(mock.requests.length, 0);
  });
});

Deno.test("an image of exactly 8000 px a side goes to Anthropic", async () => {
  await withApi(APIS[1]!, () => APIS[1]!.text("fine"), async ({ mock, turn }) => {
    const { done } = await turn("Look", [
      {
        type: "image",
        media_type: "image/png",
        data: makePng({ width: 8000, height: 1 }).toBase64(),
      },
    ]);
    assert.equal(done.type, "turn.completed");
    assert.equal(mock.requests.length, 1);
  });
});

Deno.test("a refused attachment is an invalid_request naming it, and no turn starts", async () => {
  await withApi(APIS[0]!, () => text("never"), async ({ mock, turn }) => {
    const { done } = await turn("Look", [
      { type: "image", media_type: "image/png", data: makePng().toBase64() },
      { type: "image", media_type: "image/gif", data: makePng().toBase64(), name: "x.gif" },
    ]);
    assert.equal(done.type, "error");
    assert.equal(done.code, "invalid_request");
    assert.equal(
      done.message,
      `attachments[1] ("x.gif"): its bytes are PNG, not the GIF it claims to be`,
    );
    assert.equal(mock.requests.length, 0);
  });
});
