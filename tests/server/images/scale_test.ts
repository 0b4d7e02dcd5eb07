/**
 * Scaling images down to an API's pixel limit (server/images/scale.ts, through
 * `fitImages` in server/provider/image_content.ts): PNG (any depth, channels, palette) and
 * JPEG come out within the limit in their own format, with their colours; GIF, WebP, corrupt
 * data, a decompression bomb and an image past the decoding bound are refused with a clear
 * error; the codecs stay out of the start-up import graph.
 */
import assert from "node:assert/strict";
import * as png from "fast-png";
import jpegJs from "jpeg-js";
import { zlibSync } from "fflate";

import { checkImage } from "../../../server/images/attachments.ts";
import type { ImagePart } from "../../../server/images/image_part.ts";
import { imageSize } from "../../../server/images/format.ts";
import { fitSize, MAX_DECODE_PIXELS, scaleToFit } from "../../../server/images/scale.ts";
import { ANTHROPIC_IMAGE_LIMITS, fitImages } from "../../../server/provider/image_content.ts";
import { ProviderError } from "../../../server/provider/types.ts";
import { makeGif, makePng, makeWebp } from "../../support/images.ts";

const jpeg = (jpegJs as unknown as { default?: typeof jpegJs }).default ?? jpegJs;

function part(bytes: Uint8Array, name = "big.png"): ImagePart {
  const got = checkImage(bytes, { name, claimed: undefined, maxImageBytes: 64 * 1024 * 1024 });
  assert(typeof got !== "string", String(got));
  return got;
}

/** A uniform RGBA image of `w` x `h` in one colour. */
function uniform(w: number, h: number, rgba: [number, number, number, number]): Uint8Array {
  const data = new Uint8Array(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return data;
}

Deno.test("an oversize PNG is scaled within the limit, stays a PNG and keeps its colour", async () => {
  const bytes = png.encode({
    width: 8100,
    height: 30,
    data: uniform(8100, 30, [200, 100, 50, 255]),
  });
  const image = part(bytes);
  const got = await scaleToFit(image, 8000);
  assert(typeof got !== "string", String(got));
  assert.deepEqual([got.width, got.height, got.media_type, got.name], [
    8000,
    30,
    "image/png",
    "big.png",
  ]);
  const out = Uint8Array.fromBase64(got.data);
  assert.equal(got.bytes, out.length);
  assert.deepEqual(imageSize(out, "image/png"), { width: 8000, height: 30 });
  const decoded = png.decode(out);
  assert.deepEqual([...decoded.data.subarray(0, 3)], [200, 100, 50]);
});

Deno.test("an oversize JPEG is scaled within the limit and stays a JPEG of about its colour", async () => {
  const raw = { width: 8200, height: 16, data: uniform(8200, 16, [30, 160, 220, 255]) };
  const image = part(new Uint8Array(jpeg.encode(raw, 90).data), "tall.jpg");
  const got = await scaleToFit(image, 8000);
  assert(typeof got !== "string", String(got));
  assert.deepEqual([got.width, got.height, got.media_type], [8000, 16, "image/jpeg"]);
  const out = Uint8Array.fromBase64(got.data);
  assert.deepEqual(imageSize(out, "image/jpeg"), { width: 8000, height: 16 });
  const d = jpeg.decode(out, { useTArray: true });
  for (const [c, want] of [[0, 30], [1, 160], [2, 220]] as const) {
    assert(Math.abs(d.data[c]! - want) <= 6, `channel ${c}: ${d.data[c]} is near ${want}`);
  }
});

Deno.test("grey, grey-alpha, 16-bit, 1-bit and palette PNGs are scaled with their values", async () => {
  const w = 40, h = 4;
  const cases: { name: string; image: png.ImageData; want: number[] }[] = [
    {
      name: "grey",
      image: { width: w, height: h, channels: 1, depth: 8, data: new Uint8Array(w * h).fill(90) },
      want: [90, 90, 90],
    },
    {
      name: "grey-alpha",
      image: {
        width: w,
        height: h,
        channels: 2,
        depth: 8,
        data: new Uint8Array(w * h * 2).map((_, i) => i % 2 ? 128 : 60),
      },
      want: [60, 60, 60, 128],
    },
    {
      name: "16-bit",
      image: {
        width: w,
        height: h,
        channels: 3,
        depth: 16,
        data: new Uint16Array(w * h * 3).fill(65535),
      },
      want: [255, 255, 255],
    },
    {
      name: "1-bit",
      image: {
        width: w,
        height: h,
        channels: 1,
        depth: 1,
        data: new Uint8Array(Math.ceil(w / 8) * h).fill(0xff),
      },
      want: [255, 255, 255],
    },
    {
      name: "palette",
      image: {
        width: w,
        height: h,
        channels: 1,
        depth: 8,
        data: new Uint8Array(w * h).fill(1),
        palette: [[0, 0, 0], [10, 20, 30]],
      },
      want: [10, 20, 30],
    },
  ];
  for (const c of cases) {
    const got = await scaleToFit(part(png.encode(c.image), `${c.name}.png`), 20);
    assert(typeof got !== "string", `${c.name}: ${got}`);
    assert.deepEqual([got.width, got.height], [20, 2], c.name);
    const d = png.decode(Uint8Array.fromBase64(got.data));
    assert.deepEqual([...d.data.subarray(0, c.want.length)], c.want, c.name);
  }
});

Deno.test("a GIF or WebP past the limit is refused, saying only PNG and JPEG are scaled", async () => {
  for (const [bytes, name] of [[makeGif(9000, 5), "GIF"], [makeWebp(9000, 5), "WebP"]] as const) {
    const got = await scaleToFit(part(bytes, "x"), 8000);
    assert.equal(got, `scv scales only PNG and JPEG images down, not ${name}`);
  }
});

Deno.test("an oversize PNG or JPEG whose data is corrupt gets a clear error", async () => {
  // A valid PNG header over the limit, with pixel data that is not zlib.
  const good = makePng({ width: 8100, height: 2 });
  const bad = good.slice();
  for (let i = 41; i < bad.length - 20; i++) bad[i] = 0x5a;
  const p = await scaleToFit(part(bad), 8000);
  assert.equal(typeof p, "string");
  assert.match(
    String(p),
    /^it cannot be scaled down: its PNG data cannot be (decompressed|decoded)/,
  );
  // A JPEG that is only a header: nothing to decode.
  const header = new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xc0,
    0,
    11,
    8,
    0,
    16,
    0x20,
    0x08,
    1,
    1,
    0x11,
    0,
  ]);
  const j = await scaleToFit(part(header, "cut.jpg"), 8000);
  assert.match(String(j), /^it cannot be scaled down: its JPEG data cannot be decoded/);
});

Deno.test("a PNG whose data inflates past its header's size is refused unread (a bomb)", async () => {
  const good = makePng({ width: 8100, height: 1 });
  // The same header, with 16 MiB of zeros compressed to a few kilobytes as its pixels.
  const idat = zlibSync(new Uint8Array(16 * 1024 * 1024));
  const head = good.subarray(0, 33); // signature and IHDR
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, idat.length);
  const chunk = new Uint8Array([...len, ...new TextEncoder().encode("IDAT"), ...idat, 0, 0, 0, 0]);
  const end = good.subarray(good.length - 12);
  const bomb = new Uint8Array([...head, ...chunk, ...end]);
  assert(bomb.length < 200_000, `${bomb.length} bytes`);
  const got = await scaleToFit(part(bomb), 8000);
  assert.equal(
    got,
    "it cannot be scaled down: its PNG data inflates to more than its 8100x1 px allow",
  );
});

Deno.test("an image over the decoding bound is refused before it is decoded", async () => {
  // Only the header is read: 8001 x 5000 is over 40 megapixels.
  const header = makePng({ width: 1, height: 1 }).slice();
  new DataView(header.buffer).setUint32(16, 8001);
  new DataView(header.buffer).setUint32(20, 5000);
  const got = await scaleToFit(part(header), 8000);
  assert.equal(
    got,
    `it is ${
      8001 * 5000
    } pixels, more than scv decodes to scale an image down (${MAX_DECODE_PIXELS})`,
  );
});

Deno.test("fitSize keeps the aspect ratio and at least a pixel a side", () => {
  assert.deepEqual(fitSize(16000, 4000, 8000), { width: 8000, height: 2000 });
  assert.deepEqual(fitSize(100, 30000, 2000), { width: 7, height: 2000 });
  assert.deepEqual(fitSize(1, 9000, 8000), { width: 1, height: 8000 });
});

Deno.test("fitImages scales only what is over the limit, once, and leaves the history alone", async () => {
  const small = part(makePng({ width: 3, height: 3 }), "small.png");
  const big = part(png.encode({ width: 8050, height: 2, data: uniform(8050, 2, [1, 2, 3, 255]) }));
  const history = [{ role: "user" as const, content: "look", images: [small, big] }];
  const untouched = [{ role: "user" as const, content: "look", images: [small] }];
  assert.equal(await fitImages(untouched, ANTHROPIC_IMAGE_LIMITS), untouched);
  const a = await fitImages(history, ANTHROPIC_IMAGE_LIMITS);
  const b = await fitImages(history, ANTHROPIC_IMAGE_LIMITS);
  const [m] = a;
  assert(m?.role === "user" && m.images?.length === 2);
  assert.equal(m.images[0], small);
  assert.deepEqual([m.images[1]!.width, m.images[1]!.height], [8000, 2]);
  const [n] = b;
  assert(n?.role === "user");
  assert.equal(n.images![1], m.images[1], "made once");
  // The canonical history keeps the original.
  assert.equal(history[0]!.images[1], big);
  // A GIF that cannot be scaled fails the request naming it.
  const gif = part(makeGif(8001, 1), "anim.gif");
  await assert.rejects(
    () => fitImages([{ role: "user", content: "x", images: [gif] }], ANTHROPIC_IMAGE_LIMITS),
    (e) =>
      e instanceof ProviderError && e.message ===
        `Cannot send the request's images: "anim.gif" is 8001x1 px, over the 8000 px a side ` +
          `the Anthropic API takes, and scv scales only PNG and JPEG images down, not GIF; scale ` +
          `it down and attach it again`,
  );
});

Deno.test("the codecs are imported only by scale.ts, scale.ts only by its worker, and the worker only dynamically", async () => {
  const root = new URL("../../../", import.meta.url).pathname;
  const importers: string[] = [];
  const staticScale: string[] = [];
  const scaleImporters: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(`${root}${dir}`)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(`${root}${path}`);
        if (/from "(fast-png|jpeg-js|fflate)"|import\("(fast-png|jpeg-js)"\)/.test(text)) {
          importers.push(path);
        }
        // (scale.ts names itself in its doc examples.)
        if (/from "[^"]*\/scale\.ts"/.test(text) && !path.endsWith("/scale.ts")) {
          scaleImporters.push(path);
        }
        if (/from "[^"]*\/scale_worker\.ts"/.test(text)) staticScale.push(path);
      }
    }
  };
  for (const dir of ["protocol", "server", "cli", "tui"]) await walk(dir);
  assert.deepEqual(importers, ["server/images/scale.ts"]);
  assert.deepEqual(scaleImporters, ["server/images/scale_worker.ts"]);
  assert.deepEqual(staticScale, []);
});

Deno.test("scaling is ended by the request's signal, which it rejects with", async () => {
  const big = part(
    png.encode({ width: 8500, height: 40, data: uniform(8500, 40, [9, 9, 9, 255]) }),
  );
  const controller = new AbortController();
  const history = [{ role: "user" as const, content: "look", images: [big] }];
  const scaling = fitImages(history, ANTHROPIC_IMAGE_LIMITS, controller.signal);
  const reason = new Error("the turn was cancelled");
  controller.abort(reason);
  await assert.rejects(scaling, (e) => e === reason);
  // An aborted signal starts no worker at all.
  await assert.rejects(
    fitImages(history, ANTHROPIC_IMAGE_LIMITS, controller.signal),
    (e) => e === reason,
  );
});
