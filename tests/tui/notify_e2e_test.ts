/**
 * Notifications in a real terminal (tmux): the TUI turns focus reporting on, and when the test
 * sends the terminal's focus-out report (`CSI O`) a finished turn writes OSC 9; after focus-in
 * (`CSI I`) it writes nothing. The TUI's raw output is read with tmux's `pipe-pane`.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text } from "../support/mock_openai.ts";
import { ask, E2E_OPTS, withTui } from "./e2e_support.ts";
import type { TuiSession } from "./tmux_harness.ts";

const OSC9_DONE = "\x1b]9;scv: the turn is done\x07";

/** Starts copying the pane's raw output to a file. */
function pipeOutput(s: TuiSession): string {
  const path = `${s.dir}/pane.raw`;
  const r = new Deno.Command("tmux", {
    args: ["-L", s.socket, "pipe-pane", "-o", "-t", "scv", `cat >> ${path}`],
  }).outputSync();
  assert(r.success, new TextDecoder().decode(r.stderr));
  return path;
}

async function raw(path: string): Promise<string> {
  return await Deno.readTextFile(path).catch(() => "");
}

const count = (s: string, needle: string) => s.split(needle).length - 1;

Deno.test(
  "e2e: a turn that ends while unfocused writes OSC 9, and none while focused",
  E2E_OPTS,
  async () => {
    await withTui({
      script: [text("first answer"), text("second answer"), text("third answer")],
      env: { TERM_PROGRAM: "WezTerm" },
    }, async (s) => {
      const out = pipeOutput(s);
      // Focused (the default): no notification.
      await ask(s, "one", "first answer");
      s.bytes(["1b", "5b", "4f"]); // CSI O: focus lost
      await ask(s, "two", "second answer");
      for (let i = 0; i < 200 && count(await raw(out), OSC9_DONE) === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assertEquals(count(await raw(out), OSC9_DONE), 1);
      s.bytes(["1b", "5b", "49"]); // CSI I: focus back
      await ask(s, "three", "third answer");
      assertEquals(count(await raw(out), OSC9_DONE), 1);
    });
  },
);

Deno.test("e2e: the TUI turns focus reporting off when it exits", E2E_OPTS, async () => {
  await withTui({ script: [] }, async (s) => {
    const out = pipeOutput(s);
    s.keys("C-c");
    s.keys("C-c");
    await s.waitFor("tui-exit-status=0");
    assert((await raw(out)).includes("\x1b[?1004l"), "focus reporting was not turned off");
  });
});

Deno.test('e2e: "notify": false writes no notification when unfocused', E2E_OPTS, async () => {
  await withTui({
    script: [text("an answer")],
    env: { TERM_PROGRAM: "WezTerm" },
    config: { notify: false },
  }, async (s) => {
    const out = pipeOutput(s);
    s.bytes(["1b", "5b", "4f"]);
    await ask(s, "one", "an answer");
    assertEquals(count(await raw(out), "\x1b]9;"), 0);
  });
});
