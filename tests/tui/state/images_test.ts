/**
 * Image chips in the composer: a pasted image path becomes `[image 1: name 240 KB]`, Backspace at
 * the start removes the last chip, an `@path` mention of an image is attached as an image (not as
 * text), and the chips go out as `turn.start.attachments` and into the transcript.
 */
import assert from "node:assert/strict";

import { applyEvent, applyKey, createState, drainOutbox } from "../../../tui/state/mod.ts";
import type { ImageReader } from "../../../tui/state/images.ts";
import { imageReader, pastedPath } from "../../../tui/shell/image_reader.ts";
import { enter, enterWith, key, sessionStarted, typeText } from "../fixtures.ts";

const read: ImageReader = (raw) => {
  const path = pastedPath(raw);
  if (!/\.(png|jpe?g)$/.test(path)) return undefined;
  if (path.includes("missing")) return undefined;
  const name = path.slice(path.lastIndexOf("/") + 1);
  return { name, bytes: 240_000, attachment: { type: "image", path } };
};

function state() {
  const s = createState({
    model: "m",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 10000 },
    readImage: read,
  });
  applyEvent(s, sessionStarted());
  return s;
}

Deno.test("a pasted image path becomes a chip, and Enter sends it as an attachment", () => {
  const s = state();
  applyKey(s, { type: "paste", text: "'/work/project/shots/my shot.png'" });
  assert.equal(s.composer.text, "", "the path is not typed into the composer");
  assert.deepEqual(s.images.map((i) => i.name), ["my shot.png"]);
  const [msg] = enter(s, "what is wrong here?");
  assert.deepEqual(msg, {
    type: "turn.start",
    request_id: (msg as { request_id: string }).request_id,
    session_id: (msg as { session_id: string }).session_id,
    prompt: "what is wrong here?",
    attachments: [{ type: "image", path: "/work/project/shots/my shot.png" }],
  });
  const user = drainOutbox(s).find((i) => i.kind === "user");
  assert.deepEqual(user, {
    kind: "user",
    text: "what is wrong here?",
    images: ["[image 1: my shot.png 240 KB]"],
  });
  assert.equal(s.images.length, 0, "the chips went with the prompt");
});

Deno.test("Backspace at the start of the composer removes the last chip, elsewhere it deletes", () => {
  const s = state();
  applyKey(s, { type: "paste", text: "a.png" });
  applyKey(s, { type: "paste", text: "b.png" });
  typeText(s, "x");
  applyKey(s, key("backspace"));
  assert.equal(s.composer.text, "");
  assert.equal(s.images.length, 2, "the first Backspace deleted the typed character");
  applyKey(s, key("backspace"));
  assert.deepEqual(s.images.map((i) => i.name), ["a.png"]);
});

Deno.test("a pasted text that is no image path is typed as it is", () => {
  const s = state();
  applyKey(s, { type: "paste", text: "missing.png" });
  applyKey(s, { type: "paste", text: " and more" });
  assert.equal(s.composer.text, "missing.png and more");
  assert.equal(s.images.length, 0);
});

Deno.test("an @ mention of an image is sent as an image and a text mention still as text", () => {
  const s = state();
  const [msg] = enterWith(s, "compare @shot.png with @notes.md", { "notes.md": "notes" });
  const m = msg as { prompt: string; attachments?: unknown[] };
  assert.deepEqual(m.attachments, [{ type: "image", path: "shot.png" }]);
  assert(m.prompt.includes('<file path="notes.md">'), m.prompt);
  assert(!m.prompt.includes('<file path="shot.png">'), m.prompt);
});

Deno.test("the shell's reader sends a workspace image by path and one outside inline", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir());
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeFile(`${ws}/shot.png`, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    await Deno.writeFile(`${outside}/drag.png`, new Uint8Array([1, 2, 3]));
    const r = imageReader(ws);
    assert.deepEqual(r("shot.png"), {
      name: "shot.png",
      bytes: 4,
      attachment: { type: "image", path: "shot.png" },
    });
    assert.deepEqual(r(`file://${outside}/drag.png`), {
      name: "drag.png",
      bytes: 3,
      attachment: { type: "image", media_type: "image/png", data: "AQID", name: "drag.png" },
    });
    assert.equal(r("README.md"), undefined);
    assert.equal(r("nope.png"), undefined);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("Ctrl+V without a display says which clipboard tools it uses", async () => {
  const { readClipboardImage } = await import("../../../tui/shell/clipboard_image.ts");
  assert.deepEqual(await readClipboardImage(() => undefined), {
    error: "Ctrl+V pastes an image only under Wayland (wl-paste) or X11 (xclip)",
  });
  const s = state();
  assert.deepEqual(applyKey(s, key("v", { ctrl: true })), [{ kind: "paste-image" }]);
});
