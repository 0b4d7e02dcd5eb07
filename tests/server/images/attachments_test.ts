/**
 * Image attachments are checked before a turn starts: count, decoded size, format by magic
 * bytes, header, and (by path) containment in the workspace; each refusal names the attachment.
 */
import assert from "node:assert/strict";

import { MAX_ATTACHMENTS } from "../../../protocol/constants.ts";
import type { ImageAttachment } from "../../../protocol/schema.ts";
import { loadAttachments } from "../../../server/core/attachments.ts";
import { imageSize, sniffMediaType } from "../../../server/images/format.ts";
import { makeGif, makeJpeg, makePng, makeWebp } from "../../support/images.ts";

const MAX = 4096;

function inline(bytes: Uint8Array, media_type: ImageAttachment["media_type"] = "image/png") {
  return { type: "image" as const, media_type, data: bytes.toBase64() };
}

async function withWorkspace(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("an inline PNG becomes an image part whose base64 decodes to the same bytes", async () => {
  const png = makePng({ width: 3, height: 2 });
  const got = await loadAttachments([inline(png)], { cwd: "/", maxImageBytes: MAX });
  assert(got.ok);
  const [part] = got.images;
  assert.equal(part?.media_type, "image/png");
  assert.equal(part?.name, "image 1");
  assert.deepEqual([part?.width, part?.height, part?.bytes], [3, 2, png.length]);
  assert.deepEqual(Uint8Array.fromBase64(part!.data), png);
});

Deno.test("the four formats are told apart by magic bytes and give their pixel size", () => {
  const cases = [
    [makePng({ width: 9, height: 8 }), "image/png", 9, 8],
    [makeJpeg(2, 3), "image/jpeg", 2, 3],
    [makeGif(4, 5), "image/gif", 4, 5],
    [makeWebp(6, 7), "image/webp", 6, 7],
  ] as const;
  for (const [bytes, type, width, height] of cases) {
    assert.equal(sniffMediaType(bytes), type);
    assert.deepEqual(imageSize(bytes, type), { width, height });
  }
});

Deno.test("an image of exactly max_image_bytes is taken and one byte more is refused", async () => {
  const at = makePng({ totalBytes: MAX });
  const over = makePng({ totalBytes: MAX + 1 });
  assert((await loadAttachments([inline(at)], { cwd: "/", maxImageBytes: MAX })).ok);
  const got = await loadAttachments([inline(over)], { cwd: "/", maxImageBytes: MAX });
  assert.deepEqual(got, {
    ok: false,
    message: `attachments[0] ("image 1"): it is ${MAX + 1} bytes, over max_image_bytes (${MAX})`,
  });
});

Deno.test("eight attachments are taken and nine are refused", async () => {
  const png = inline(makePng());
  const eight = Array.from({ length: MAX_ATTACHMENTS }, () => png);
  const ok = await loadAttachments(eight, { cwd: "/", maxImageBytes: MAX });
  assert(ok.ok && ok.images.length === 8);
  const nine = await loadAttachments([...eight, png], { cwd: "/", maxImageBytes: MAX });
  assert.deepEqual(nine, { ok: false, message: "9 attachments are over the limit of 8 per turn" });
});

Deno.test("a JPEG sent as image/png is refused naming the attachment and both formats", async () => {
  const got = await loadAttachments([inline(makePng()), { ...inline(makeJpeg()), name: "x.png" }], {
    cwd: "/",
    maxImageBytes: MAX,
  });
  assert.deepEqual(got, {
    ok: false,
    message: `attachments[1] ("x.png"): its bytes are JPEG, not the PNG it claims to be`,
  });
});

Deno.test("bytes of no image format are refused, and so is data that is not base64", async () => {
  const text = new TextEncoder().encode("not an image at all");
  const a = await loadAttachments([inline(text, "image/gif")], { cwd: "/", maxImageBytes: MAX });
  assert(!a.ok);
  assert.match(a.message, /^attachments\[0\] \("image 1"\): its bytes are not the GIF it claims/);
  const b = await loadAttachments([{ type: "image", media_type: "image/png", data: "@@@" }], {
    cwd: "/",
    maxImageBytes: MAX,
  });
  assert.deepEqual(b, {
    ok: false,
    message: `attachments[0] ("image 1"): its data is not valid base64`,
  });
});

Deno.test("a PNG whose header is cut short is refused", async () => {
  const cut = makePng().subarray(0, 16);
  const got = await loadAttachments([inline(cut)], { cwd: "/", maxImageBytes: MAX });
  assert(!got.ok && got.message.endsWith("its PNG header is cut short or malformed"));
});

Deno.test("an attachment with neither path nor data, or with both, is refused", async () => {
  const none = await loadAttachments([{ type: "image" }], { cwd: "/", maxImageBytes: MAX });
  assert(!none.ok && none.message.includes(`give "path"`));
  const both = await loadAttachments([{ type: "image", path: "a.png", data: "aGk=" }], {
    cwd: "/",
    maxImageBytes: MAX,
  });
  assert(!both.ok && both.message.includes("not both"));
  const noType = await loadAttachments([{ type: "image", data: "aGk=" }], {
    cwd: "/",
    maxImageBytes: MAX,
  });
  assert(!noType.ok && noType.message.includes(`"media_type" is required`));
});

Deno.test("an image path inside the workspace is read and named by its file name", async () => {
  await withWorkspace(async (dir) => {
    const png = makePng({ width: 5, height: 4, seed: 3 });
    await Deno.mkdir(`${dir}/shots`);
    await Deno.writeFile(`${dir}/shots/shot.png`, png);
    const got = await loadAttachments([{ type: "image", path: "shots/shot.png" }], {
      cwd: dir,
      maxImageBytes: MAX,
    });
    assert(got.ok);
    assert.equal(got.images[0]?.name, "shot.png");
    assert.deepEqual(Uint8Array.fromBase64(got.images[0]!.data), png);
  });
});

Deno.test("an image path at max_image_bytes is read and one byte more is refused unread", async () => {
  await withWorkspace(async (dir) => {
    await Deno.writeFile(`${dir}/at.png`, makePng({ totalBytes: MAX }));
    await Deno.writeFile(`${dir}/over.png`, makePng({ totalBytes: MAX + 1 }));
    const opts = { cwd: dir, maxImageBytes: MAX };
    assert((await loadAttachments([{ type: "image", path: "at.png" }], opts)).ok);
    const got = await loadAttachments([{ type: "image", path: "over.png" }], opts);
    assert.deepEqual(got, {
      ok: false,
      message: `attachments[0] ("over.png"): it is ${MAX + 1} bytes, over max_image_bytes (${MAX})`,
    });
  });
});

Deno.test("an image path outside the workspace is refused, also through a symlink", async () => {
  await withWorkspace(async (outside) => {
    await withWorkspace(async (dir) => {
      await Deno.writeFile(`${outside}/secret.png`, makePng());
      await Deno.symlink(`${outside}/secret.png`, `${dir}/link.png`);
      const opts = { cwd: dir, maxImageBytes: MAX };
      const up = await loadAttachments([{ type: "image", path: `${outside}/secret.png` }], opts);
      assert(!up.ok);
      assert.equal(
        up.message,
        `attachments[0] ("secret.png"): "${outside}/secret.png" is outside the workspace "${dir}"`,
      );
      const link = await loadAttachments([{ type: "image", path: "link.png" }], opts);
      assert(!link.ok && link.message.includes("is outside the workspace"));
    });
  });
});

Deno.test("an image path whose ending claims another format than its bytes is refused", async () => {
  await withWorkspace(async (dir) => {
    await Deno.writeFile(`${dir}/photo.gif`, makePng());
    const got = await loadAttachments([{ type: "image", path: "photo.gif" }], {
      cwd: dir,
      maxImageBytes: MAX,
    });
    assert.deepEqual(got, {
      ok: false,
      message: `attachments[0] ("photo.gif"): its bytes are PNG, not the GIF it claims to be`,
    });
  });
});

Deno.test("a missing image path is refused with the file error", async () => {
  await withWorkspace(async (dir) => {
    const got = await loadAttachments([{ type: "image", path: "nope.png" }], {
      cwd: dir,
      maxImageBytes: MAX,
    });
    assert.deepEqual(got, {
      ok: false,
      message: `attachments[0] ("nope.png"): Cannot read "nope.png": no such file or directory`,
    });
  });
});

Deno.test("attachments whose base64 together is over max_history_bytes are refused", async () => {
  const png = inline(makePng({ totalBytes: 3000 }));
  const b64 = png.data.length;
  const at = await loadAttachments([png, png], {
    cwd: "/",
    maxImageBytes: MAX,
    maxHistoryBytes: 2 * b64,
  });
  assert(at.ok);
  const over = await loadAttachments([png, png], {
    cwd: "/",
    maxImageBytes: MAX,
    maxHistoryBytes: 2 * b64 - 1,
  });
  assert.deepEqual(over, {
    ok: false,
    message: `the 2 images take ${2 * b64} bytes as base64, more than the session history holds ` +
      `(max_history_bytes ${2 * b64 - 1})`,
  });
});
