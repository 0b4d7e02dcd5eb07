/**
 * The TUI in tmux with images: pasting an image's path (what a terminal sends on drag and drop)
 * shows a chip in the composer, an `@shot.png` mention is attached too, and Enter sends both
 * images to the provider, byte for byte, with the chips in the transcript.
 */
import assert from "node:assert/strict";

import { text } from "../support/mock_openai.ts";
import { makePng } from "../support/images.ts";
import { E2E_OPTS, withTui } from "./e2e_support.ts";

Deno.test(
  "e2e: a pasted image path and an @shot.png mention are sent as images",
  E2E_OPTS,
  async () => {
    await withTui({ script: [text("Both images arrived.")] }, async (s) => {
      const pasted = makePng({ width: 5, height: 5, seed: 1 });
      const shot = makePng({ width: 4, height: 4, seed: 2 });
      await Deno.writeFile(`${s.workspace}/pasted.png`, pasted);
      await Deno.writeFile(`${s.workspace}/shot.png`, shot);
      s.paste(`'${await Deno.realPath(s.workspace)}/pasted.png'`);
      const chip = `[image 1: pasted.png ${pasted.length} B]`;
      await s.waitFor(chip);
      s.type("compare it with @shot.png");
      s.keys("Enter");
      const pane = await s.waitFor("Both images arrived.");
      assert(pane.includes(chip), pane);
      assert(pane.includes(`[image 2: shot.png ${shot.length} B]`), pane);
      const user = s.mock.requests[0]!.body.messages.at(-1)!;
      assert.deepEqual(user.content, [
        { type: "text", text: "compare it with @shot.png" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${pasted.toBase64()}` } },
        { type: "image_url", image_url: { url: `data:image/png;base64,${shot.toBase64()}` } },
      ]);
    });
  },
);

Deno.test(
  "e2e: Ctrl+V pastes the clipboard's image through xclip as a chip, sent inline",
  E2E_OPTS,
  async () => {
    const bin = await Deno.makeTempDir({ prefix: "scv-fake-xclip-" });
    try {
      const png = makePng({ width: 3, height: 3, seed: 4 });
      await Deno.writeFile(`${bin}/clip.png`, png);
      // A stand-in for xclip: it offers image/png and gives the PNG's bytes.
      await Deno.writeTextFile(
        `${bin}/xclip`,
        `#!/bin/sh\ncase "$*" in *TARGETS*) printf 'TARGETS\\nimage/png\\n';; *image/png*) cat '${bin}/clip.png';; *) exit 1;; esac\n`,
      );
      await Deno.chmod(`${bin}/xclip`, 0o755);
      const env = { PATH: `${bin}:${Deno.env.get("PATH")}`, DISPLAY: ":99", WAYLAND_DISPLAY: "" };
      await withTui({ script: [text("Got the clipboard.")], env }, async (s) => {
        s.keys("C-v");
        await s.waitFor(`[image 1: clipboard.png ${png.length} B]`);
        s.type("what is this?");
        s.keys("Enter");
        await s.waitFor("Got the clipboard.");
        const user = s.mock.requests[0]!.body.messages.at(-1)!;
        assert.deepEqual(user.content, [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png.toBase64()}` } },
        ]);
      });
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
);
