/**
 * End-to-end tests of steering and the queue in the TUI, in tmux against the real server (scv
 * 0.3, docs/steering.md): Enter while a turn runs steers it, Tab queues behind it, Alt+Up takes
 * the queued prompt back, a cancel gives an unentered steer back, and after `kill -9` the next
 * `scv -c` offers what was waiting.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, textChunk, toolCalls } from "../support/mock_openai.ts";
import { E2E_OPTS as opts, waitForComposer, withTui } from "./e2e_support.ts";
import type { TuiSession } from "./tmux_harness.ts";

/** The last message of provider request `i`, as role and text. */
function lastMessage(s: TuiSession, i: number): { role: unknown; content: unknown } {
  const messages = s.mock.requests[i]!.body.messages;
  const m = messages.at(-1)!;
  return { role: m.role, content: m.content };
}

/** A reply that streams a little text, then hangs until the turn is cancelled. */
const hanging = (content: string) => ({
  kind: "stream" as const,
  events: [textChunk(content)],
  hang: true,
});

/** The pids of the TUI processes this session started (its config path is in their command). */
function tuiPids(s: TuiSession): number[] {
  const out = new Deno.Command("ps", { args: ["-eo", "pid=,args="], stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n").flatMap((line) => {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    return m && m[2]!.startsWith("deno run") && m[2]!.includes(`${s.dir}/config.jsonc`)
      ? [Number(m[1])]
      : [];
  });
}

/** Waits until a recorded session file under the TUI's state directory holds `needle`. */
async function recorded(s: TuiSession, needle: string): Promise<void> {
  const dir = `${s.stateHome}/scv/sessions`;
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    const entries = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
    for (const e of entries) {
      if (!e.name.endsWith(".jsonl")) continue;
      if ((await Deno.readTextFile(`${dir}/${e.name}`)).includes(needle)) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no session file under ${dir} holds ${needle}`);
}

Deno.test(
  "e2e: Enter while a turn runs steers it and Tab queues a prompt behind it",
  opts,
  async () => {
    await withTui({
      script: [
        toolCalls([{ name: "bash", arguments: { command: "true" } }]),
        text("Steer taken."),
        text("Queued done."),
      ],
      config: { approval_policy: "always" },
    }, async (s) => {
      s.type("run true");
      s.keys("Enter");
      await s.waitFor("Run shell command: true");
      // The turn waits at the approval; a prompt typed now steers it (Enter) or queues (Tab).
      s.type("mind the tests");
      s.keys("Enter");
      await s.waitFor("↳ steer: mind the tests");
      s.type("then the docs");
      s.keys("Tab");
      await s.waitFor("↳ queue: then the docs");
      s.type("y");
      await s.waitFor("Queued done.");
      await s.waitForGone("↳ queue:");
      // The steer entered after the tool, before the next request; the queued prompt ran next.
      assertEquals(lastMessage(s, 1), { role: "user", content: "mind the tests" });
      assertEquals(lastMessage(s, 2), { role: "user", content: "then the docs" });
      assertEquals(s.mock.requests.length, 3);
    });
  },
);

Deno.test(
  "e2e: Alt+Up takes a queued prompt back and a cancel gives an unentered steer back",
  opts,
  async () => {
    await withTui({ script: [hanging("working on it")] }, async (s) => {
      s.type("start");
      s.keys("Enter");
      await s.waitFor("working on it");
      s.type("queued text");
      s.keys("Tab");
      await s.waitFor("↳ queue: queued text");
      s.keys("M-Up");
      await waitForComposer(s, ["queued text"]);
      await s.waitForGone("↳ queue: queued text");
      s.keys("C-u");
      s.type("steer text");
      s.keys("Enter");
      await s.waitFor("↳ steer: steer text");
      s.keys("Escape");
      await s.waitFor("Turn cancelled");
      // The steer never entered (the model never reached a safe point): it is given back.
      const pane = await waitForComposer(s, ["steer text"]);
      assert(!pane.includes("↳ steer:"), pane);
      assertEquals(s.mock.requests.length, 1);
    });
  },
);

Deno.test(
  "e2e: after kill -9, scv -c shows what was waiting and offers to send it",
  opts,
  async () => {
    await withTui({
      script: [hanging("working"), text("Sent after the crash.")],
    }, async (s) => {
      s.type("first");
      s.keys("Enter");
      await s.waitFor("working");
      s.type("later please");
      s.keys("Tab");
      await s.waitFor("↳ queue: later please");
      await recorded(s, '"t":"wait"');
      const pids = tuiPids(s);
      assert(pids.length > 0, "the TUI process runs");
      for (const pid of pids) Deno.kill(pid, "SIGKILL");
      await s.waitFor("tui-exit-status=137");
      // The composer holds the offer, so its empty placeholder never shows.
      await s.relaunch(["-c"], false);
      await s.waitFor("1 prompt was waiting when scv stopped");
      await waitForComposer(s, ["later please"]);
      // Nothing was sent by itself: only the first turn's request reached the provider.
      assertEquals(s.mock.requests.length, 1);
      s.keys("Enter");
      await s.waitFor("Sent after the crash.");
      assertEquals(lastMessage(s, 1), { role: "user", content: "later please" });
    });
  },
);
