/**
 * `scv exec --image FILE` end to end: each file goes to the provider as an image beside the
 * prompt (also with the prompt from stdin), an image of 2 MB fits though a client frame is
 * 1 MiB, and a missing or non-image file is refused before any request.
 */
import assert from "node:assert/strict";

import { MockOpenAI, text } from "../support/mock_openai.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";
import { makeJpeg, makePng } from "../support/images.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

async function execScv(mock: MockOpenAI, dir: string, args: string[], stdin?: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, MAIN, "exec", "--cwd", dir, ...args],
    cwd: dir,
    env: {
      OPENAI_BASE_URL: mock.baseUrl,
      XDG_CONFIG_HOME: dir,
      XDG_STATE_HOME: `${dir}/.state`,
      NO_COLOR: "1",
    },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const urls = (msg: Record<string, unknown>) =>
  (msg.content as Array<{ type: string; image_url?: { url: string } }>)
    .filter((p) => p.type === "image_url").map((p) => p.image_url!.url);

Deno.test("exec --image twice sends both images with the prompt, in order", async () => {
  const mock = await MockOpenAI.start([text("Two images.")]);
  try {
    await withDir(async (dir) => {
      const png = makePng({ width: 3, height: 3, seed: 1 });
      const jpeg = makeJpeg(4, 5);
      await Deno.writeFile(`${dir}/a.png`, png);
      await Deno.writeFile(`${dir}/b.jpg`, jpeg);
      const r = await execScv(mock, dir, [
        "--image",
        "a.png",
        "--image",
        `${dir}/b.jpg`,
        "Compare",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "Two images.\n");
      const user = mock.requests[0]!.body.messages.at(-1)!;
      assert.deepEqual((user.content as Array<Record<string, unknown>>)[0], {
        type: "text",
        text: "Compare",
      });
      assert.deepEqual(urls(user), [
        `data:image/png;base64,${png.toBase64()}`,
        `data:image/jpeg;base64,${jpeg.toBase64()}`,
      ]);
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec --image works with the prompt from stdin and with a 2 MB image", async () => {
  const mock = await MockOpenAI.start([text("ok")]);
  try {
    await withDir(async (dir) => {
      const big = makePng({ width: 820, height: 820, seed: 2 }); // about 2 MB stored
      assert(big.length > 2_000_000, `${big.length}`);
      await Deno.writeFile(`${dir}/big.png`, big);
      const r = await execScv(mock, dir, ["--image", "big.png", "-"], "What is this?");
      assert.equal(r.code, 0, r.stderr);
      const user = mock.requests[0]!.body.messages.at(-1)!;
      assert.deepEqual(urls(user), [`data:image/png;base64,${big.toBase64()}`]);
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec --image of a missing file or a non-image is refused before any request", async () => {
  const mock = await MockOpenAI.start([text("never")]);
  try {
    await withDir(async (dir) => {
      const missing = await execScv(mock, dir, ["--image", "nope.png", "Look"]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /scv exec: --image "nope.png": no such file/);
      await Deno.writeTextFile(`${dir}/notes.png`, "just text");
      const text_ = await execScv(mock, dir, ["--image", "notes.png", "Look"]);
      assert.equal(text_.code, 1);
      assert.match(
        text_.stderr,
        /invalid_request: attachments\[0\] \("notes.png"\): its bytes are not the PNG/,
      );
      assert.equal(mock.requests.length, 0);
    });
  } finally {
    await mock.close();
  }
});
