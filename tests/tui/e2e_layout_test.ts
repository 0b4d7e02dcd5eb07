/**
 * End-to-end tests of the live region's layout under resizes and small terminals: the real
 * `scv` TUI in a tmux pane (tmux keeps its default `scroll-on-clear on`), asserting on the
 * whole history from `tmux capture-pane -S -`.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { count, delay, E2E_OPTS as opts, slowText, withTui } from "./e2e_support.ts";

/** The composer's placeholder while idle, and the idle status line's context text. */
const PLACEHOLDER = "ask anything · /help for commands";
// After a turn the mock reports no usage: the figure is scv's own count, not 0.
const STATUS = /ctx [\d.]+k?\/128k \(\d+%\) +idle/;
/** Any status line drawn at 80 columns, whatever the context use and turn state. */
const ANY_STATUS = /· ctx \d\S*\/128k \(\d+%\)/;

Deno.test(
  "e2e: shrinking the window mid-stream leaves no stale copy of the live region in history",
  opts,
  async () => {
    const pieces = Array.from({ length: 60 }, (_, i) => `line${i} lorem ipsum\n`);
    await withTui({ script: [slowText(pieces, 60)], width: 80, height: 24 }, async (s) => {
      s.type("stream sixty lines");
      s.keys("Enter");
      await s.waitFor(/line12 lorem/);
      s.resize(80, 12);
      await s.waitFor(/line30 lorem/);
      await s.waitFor(STATUS, 15000);
      const all = s.capture(true);
      assertEquals(count(all, PLACEHOLDER), 1, all);
      assertEquals(count(all, STATUS), 1, all);
      assertEquals(count(all, ANY_STATUS), 1, all);
      assertEquals(count(all, "streaming"), 0, all);
      assertEquals(count(all, "› stream sixty lines"), 1, all);
      for (let i = 0; i < 60; i++) {
        assertEquals(count(all, new RegExp(`\\bline${i} lorem ipsum`)), 1, `line${i}\n${all}`);
      }
    });
  },
);

Deno.test(
  "e2e: resizing during an approval leaves no stale approval, composer or status in history",
  opts,
  async () => {
    await withTui({
      script: [
        toolCalls([{ name: "bash", arguments: { command: "echo resized-$((40+2))" } }]),
        text("The command printed 42."),
      ],
      width: 80,
      height: 24,
    }, async (s) => {
      s.type("run it");
      s.keys("Enter");
      await s.waitFor("[n] deny");
      for (const [w, h] of [[80, 5], [80, 8], [80, 10]] as const) {
        s.resize(w, h);
        await delay(300); // a frame is drawn for each size
      }
      // Only the height changed so far: nothing of the live region is anywhere but on screen.
      let all = s.capture(true);
      assertEquals(count(all, "Approve bash?"), 1, all);
      assertEquals(count(all, "awaiting approval"), 1, all);
      assertEquals(count(all, "type ahead; Enter queues"), 1, all);
      // Narrowed to 20 columns, tmux re-wraps the old region into more rows than the screen
      // has and pushes its top into history before scv sees the resize (see tui/terminal.ts);
      // the composer and the status line, at the bottom, stay on screen and are redrawn.
      s.resize(20, 24);
      await delay(300);
      s.resize(80, 24);
      await s.waitFor("[n] deny");
      s.type("y");
      await s.waitFor("The command printed 42.");
      await s.waitFor(STATUS);
      all = s.capture(true);
      assertEquals(count(all, PLACEHOLDER), 1, all);
      assertEquals(count(all, STATUS), 1, all);
      assertEquals(count(all, ANY_STATUS), 1, all);
      assertEquals(count(all, "type ahead; Enter queues"), 0, all);
      assertEquals(count(all, "awaiting approval"), 0, all);
      assertEquals(count(all, "› run it"), 1, all);
      assert(all.includes("✓ bash"), all);
    });
  },
);

Deno.test(
  "e2e: /clear keeps the earlier conversation in history once, without the live region",
  opts,
  async () => {
    const usage = { prompt_tokens: 500, completion_tokens: 20 };
    await withTui({
      script: [text("An answer to keep.", { usage })],
      width: 80,
      height: 24,
    }, async (s) => {
      s.type("remember this");
      s.keys("Enter");
      await s.waitFor(/ctx 520\/128k \(0%\) +idle/);
      s.type("/clear");
      s.keys("Enter");
      await s.waitFor("Session cleared");
      await s.waitFor(STATUS);
      const all = s.capture(true);
      assertEquals(count(all, "An answer to keep."), 1, all);
      assertEquals(count(all, "› remember this"), 1, all);
      assertEquals(count(all, PLACEHOLDER), 1, all);
      assertEquals(count(all, STATUS), 1, all);
      assertEquals(count(all, ANY_STATUS), 1, all);
      assertEquals(count(all, "› /clear"), 0, all);
      assert(!s.capture().includes("An answer to keep."), s.capture());
    });
  },
);
