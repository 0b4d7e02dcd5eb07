/**
 * End to end in tmux: `/undo` shows the files it will change and asks, `/rewind` picks a turn
 * and rewinds its files, the conversation or both, and Esc twice on an empty composer opens
 * the same picker; the transcript says what was restored.
 *
 * @module
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { ask, E2E_OPTS as opts, withTui } from "./e2e_support.ts";

const CONFIG = { approval_policy: "never", sandbox: "off" };

/** A turn that writes new.txt and has bash delete old.txt, then answers `answer`. */
function changes(answer: string) {
  return [
    toolCalls([
      { id: "w", name: "write_file", arguments: { path: "new.txt", content: "new\n" } },
      { id: "b", name: "bash", arguments: { command: "rm old.txt" } },
    ]),
    text(answer),
  ];
}

const FILES = { "old.txt": "old\n" };

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** The user messages of a provider request. */
function userPrompts(body: unknown): string[] {
  const list = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  return list.filter((m) => m.role === "user").map((m) => String(m.content));
}

Deno.test("e2e: /undo lists the files it will change, asks, and restores them", opts, async () => {
  await withTui({ script: changes("Changed."), config: CONFIG, files: FILES }, async (s) => {
    await ask(s, "change the files", "Changed.");
    assert(await exists(`${s.workspace}/new.txt`));
    assert(!await exists(`${s.workspace}/old.txt`));
    s.type("/undo");
    s.keys("Enter");
    const question = await s.waitFor("put them back as they were?");
    assert(question.includes("restored old.txt"), question);
    assert(question.includes("removed  new.txt"), question);
    assert(question.includes("y restore · n keep"), question);
    // Nothing changes before the answer.
    assert(await exists(`${s.workspace}/new.txt`));
    s.type("y");
    const done = await s.waitFor('Undid "change the files"');
    assert(done.includes("1 file restored, 1 file removed"), done);
    assertEquals(await Deno.readTextFile(`${s.workspace}/old.txt`), "old\n");
    assert(!await exists(`${s.workspace}/new.txt`));
  });
});

Deno.test("e2e: /rewind with files puts back the picked turn's files only", opts, async () => {
  await withTui({
    script: [...changes("Changed."), text("Plain answer.")],
    config: CONFIG,
    files: FILES,
  }, async (s) => {
    await ask(s, "change the files", "Changed.");
    await ask(s, "just talk", "Plain answer.");
    s.type("/rewind");
    s.keys("Enter");
    const picker = await s.waitFor("2 turns, newest first");
    assert(picker.includes("just talk") && picker.includes("change the files"), picker);
    assert(picker.includes("2 files"), picker);
    s.keys("Down");
    s.keys("Enter");
    await s.waitFor("[f] files");
    s.type("f");
    const done = await s.waitFor('Rewound to before "change the files"');
    assert(done.includes("1 file restored, 1 file removed"), done);
    assert(!done.includes("dropped from the conversation"), done);
    assertEquals(await Deno.readTextFile(`${s.workspace}/old.txt`), "old\n");
    assert(!await exists(`${s.workspace}/new.txt`));
  });
});

Deno.test("e2e: /rewind with both drops the turns and their files", opts, async () => {
  await withTui({
    script: [...changes("Changed."), text("Plain answer."), text("Fresh start.")],
    config: CONFIG,
    files: FILES,
  }, async (s) => {
    await ask(s, "change the files", "Changed.");
    await ask(s, "just talk", "Plain answer.");
    s.type("/rewind");
    s.keys("Enter");
    await s.waitFor("2 turns, newest first");
    s.keys("Down");
    s.keys("Enter");
    await s.waitFor("[b] both");
    s.type("b");
    const done = await s.waitFor("2 turns dropped from the conversation");
    assert(done.includes('Rewound to before "change the files"'), done);
    assert(!await exists(`${s.workspace}/new.txt`));
    await ask(s, "start over", "Fresh start.");
    assertEquals(userPrompts(s.mock.requests.at(-1)!.body), ["start over"]);
  });
});

Deno.test(
  "e2e: Esc twice on an empty composer opens the rewind picker; conversation only",
  opts,
  async () => {
    await withTui({
      script: [text("One."), text("Two."), text("Three.")],
      config: CONFIG,
    }, async (s) => {
      await ask(s, "first question", "One.");
      await ask(s, "second question", "Two.");
      s.keys("Escape");
      await s.waitFor("Press Esc again to rewind");
      s.keys("Escape");
      await s.waitFor("2 turns, newest first");
      s.keys("Enter");
      await s.waitFor("[c] conversation");
      s.type("c");
      const done = await s.waitFor('Rewound the conversation to before "second question"');
      assert(done.includes("1 turn dropped from the conversation"), done);
      await ask(s, "third question", "Three.");
      assertEquals(userPrompts(s.mock.requests.at(-1)!.body), ["first question", "third question"]);
    });
  },
);

/** Pids of processes whose command line holds `needle` (ps: Deno may not read /proc). */
function pidsOf(needle: string, and = "main.ts"): number[] {
  const out = new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((l) => l.includes(needle) && l.includes(and))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid > 0 && pid !== Deno.pid);
}

Deno.test(
  "e2e: kill -9 during a turn, then scv -c and /undo puts the files back",
  opts,
  async () => {
    // Bounded, and named by a token, so the test can wait until this orphan is gone.
    const token = `scv-orphan-${crypto.randomUUID()}`;
    const wait = `echo made > made.txt; rm old.txt; ` +
      `for i in $(seq 600); do [ -e stop ] && break; sleep 0.1; done # ${token}`;
    await withTui({
      script: [toolCalls([{ id: "b", name: "bash", arguments: { command: wait } }])],
      config: CONFIG,
      files: FILES,
    }, async (s) => {
      try {
        s.type("make and wait");
        s.keys("Enter");
        await s.waitFor("make and wait");
        // The command ran its first steps once made.txt exists and old.txt does not.
        for (let i = 0; i < 600; i++) {
          if (await exists(`${s.workspace}/made.txt`) && !await exists(`${s.workspace}/old.txt`)) {
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        const pids = pidsOf(s.workspace);
        assert(pids.length > 0, "the TUI's process");
        for (const pid of pids) Deno.kill(pid, "SIGKILL");
        await s.waitFor("tui-exit-status=137");
      } finally {
        // The orphaned command ends by itself once it sees this.
        await Deno.writeTextFile(`${s.workspace}/stop`, "");
        for (let i = 0; i < 200 && pidsOf(token, "").length > 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      assertEquals(pidsOf(token, ""), []);
      await Deno.remove(`${s.workspace}/stop`);
      await s.relaunch(["-c"]);
      await s.waitFor("Resumed session");
      s.type("/undo");
      s.keys("Enter");
      const question = await s.waitFor("put them back as they were?");
      assert(question.includes("restored old.txt") && question.includes("removed  made.txt"));
      s.type("y");
      await s.waitFor('Undid "make and wait"');
      assertEquals(await Deno.readTextFile(`${s.workspace}/old.txt`), "old\n");
      assert(!await exists(`${s.workspace}/made.txt`));
      // The resumed session ran no turn: the one bash command was the killed turn's.
      assertEquals(s.mock.requests.length, 1);
    });
  },
);
