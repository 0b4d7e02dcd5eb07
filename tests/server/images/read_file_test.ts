/**
 * `read_file` of an image inside the workspace gives the model the image itself, bounded like an
 * attachment; where the provider takes no images it says so. Through the real server, each API
 * gets the image where it can take it: Anthropic inside the `tool_result`, Chat Completions and
 * Responses in a user message right after the tool results.
 */
import assert from "node:assert/strict";

import { readFileTool } from "../../../server/tools/read_file.ts";
import { makePng } from "../../support/images.ts";
import { toolContext, withTempDir } from "../tools/support.ts";
import { MockOpenAI, type MockRequest, text, toolCalls } from "../../support/mock_openai.ts";
import { withServer } from "../../support/server_process.ts";
import { ANTHROPIC, RESPONSES } from "../provider/api_dialects.ts";

const MAX = 4096;

Deno.test("read_file of a PNG in the workspace gives the image itself, byte for byte", async () => {
  await withTempDir(async (dir) => {
    const png = makePng({ width: 3, height: 2, seed: 9 });
    await Deno.writeFile(`${dir}/shot.png`, png);
    const r = await readFileTool.run({ path: "shot.png" }, {
      ...toolContext(dir),
      maxImageBytes: MAX,
    });
    assert.equal(r.success, true);
    assert.equal(
      r.output,
      `Image "shot.png": PNG, 3x2 px, ${png.length} bytes; it is attached for you to see.`,
    );
    assert.equal(r.images?.length, 1);
    assert.deepEqual(Uint8Array.fromBase64(r.images![0]!.data), png);
    assert.equal(r.images![0]!.name, "shot.png");
  });
});

Deno.test("read_file of an image at max_image_bytes is shown and one byte more is refused", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/at.png`, makePng({ totalBytes: MAX }));
    await Deno.writeFile(`${dir}/over.png`, makePng({ totalBytes: MAX + 1 }));
    const ctx = { ...toolContext(dir), maxImageBytes: MAX };
    assert.equal((await readFileTool.run({ path: "at.png" }, ctx)).images?.length, 1);
    const over = await readFileTool.run({ path: "over.png" }, ctx);
    assert.deepEqual(over, {
      success: false,
      output: `Cannot show the image "over.png": it is ${
        MAX + 1
      } bytes, over max_image_bytes (${MAX})`,
      truncated: false,
    });
  });
});

Deno.test("read_file of a .png that is not a PNG is refused by its magic bytes", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/fake.png`, "hello");
    const r = await readFileTool.run({ path: "fake.png" }, {
      ...toolContext(dir),
      maxImageBytes: MAX,
    });
    assert.equal(r.success, false);
    assert.match(
      r.output,
      /^Cannot show the image "fake.png": its bytes are not the PNG it claims/,
    );
    assert.equal(r.images, undefined);
  });
});

Deno.test("read_file of an image says so when the provider takes no images", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/shot.png`, makePng());
    const r = await readFileTool.run({ path: "shot.png" }, toolContext(dir));
    assert.equal(r.success, false);
    assert.match(r.output, /this provider takes no images, so it cannot be shown to you/);
    assert.equal(r.images, undefined);
  });
});

type Item = Record<string, unknown>;
const items = (b: MockRequest["body"]) => (b.messages ?? b.input) as Item[];

const CASES = [
  {
    name: "Chat Completions",
    provider: "openai-chat" as const,
    call: () => toolCalls([{ id: "call_1", name: "read_file", arguments: { path: "shot.png" } }]),
    done: () => text("A tiny image."),
    followUp: (b: MockRequest["body"]) => items(b).some((m) => m.role === "tool"),
    /** The image as the follow-up request carries it. */
    check: (b: MockRequest["body"], b64: string) => {
      const all = items(b);
      const tool = all.findIndex((m) => m.role === "tool");
      assert.match(String(all[tool]!.content), /^Image "shot.png": PNG, 2x2 px/);
      const after = all[tool + 1]!;
      assert.equal(after.role, "user");
      const parts = after.content as Item[];
      assert.match(
        String(parts[0]!.text),
        /tool result of call call_1 includes an image \(shot.png\)/,
      );
      assert.deepEqual(parts[1], {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${b64}` },
      });
    },
  },
  {
    name: "Anthropic",
    provider: "anthropic" as const,
    call: () => ANTHROPIC.tools([{ name: "read_file", arguments: { path: "shot.png" } }]),
    done: () => ANTHROPIC.text("A tiny image."),
    followUp: (b: MockRequest["body"]) => JSON.stringify(b).includes("tool_result"),
    check: (b: MockRequest["body"], b64: string) => {
      const last = items(b).at(-1)!;
      const result = (last.content as Item[]).find((c) => c.type === "tool_result")!;
      const content = result.content as Item[];
      assert.match(String(content[0]!.text), /^Image "shot.png"/);
      assert.deepEqual(content[1], {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: b64 },
      });
    },
  },
  {
    name: "Responses",
    provider: "openai-responses" as const,
    call: () => RESPONSES.tools([{ name: "read_file", arguments: { path: "shot.png" } }]),
    done: () => RESPONSES.text("A tiny image."),
    followUp: (b: MockRequest["body"]) => items(b).some((m) => m.type === "function_call_output"),
    check: (b: MockRequest["body"], b64: string) => {
      const all = items(b);
      const out = all.findIndex((m) => m.type === "function_call_output");
      const after = all[out + 1]!;
      assert.equal(after.role, "user");
      const parts = after.content as Item[];
      assert.equal(parts[0]!.type, "input_text");
      assert.deepEqual(parts[1], {
        type: "input_image",
        image_url: `data:image/png;base64,${b64}`,
      });
    },
  },
];

for (const c of CASES) {
  Deno.test(`${c.name}: read_file of an image sends the image after the tool call`, async () => {
    const png = makePng({ width: 2, height: 2, seed: 21 });
    const mock = await MockOpenAI.start((req) => c.followUp(req.body) ? c.done() : c.call());
    await withServer(mock, {
      config: { provider: c.provider, model: "m", approval_policy: "never" },
    }, async (server) => {
      const { sessionId, cwd } = await server.open();
      await Deno.writeFile(`${cwd}/shot.png`, png);
      const { t, done } = await server.runTurn(sessionId, "Look at shot.png");
      assert.equal(done.type, "turn.completed", JSON.stringify(done));
      const completed = server.eventOf(t.turn_id, "tool.completed");
      assert.equal(completed.success, true);
      assert(
        !JSON.stringify(completed).includes(png.toBase64()),
        "the event carries no image bytes",
      );
      assert.equal(mock.requests.length, 2);
      c.check(mock.requests[1]!.body, png.toBase64());
    });
  });
}
