/**
 * End-to-end tests: the real `scv` TUI in a tmux pane, against the mock OpenAI provider,
 * asserting on `tmux capture-pane` text.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { TuiSession } from "./tmux_harness.ts";
import {
  ask,
  composerRows,
  count,
  E2E_OPTS as opts,
  slowText,
  waitForComposer,
  withTui,
} from "./e2e_support.ts";

const MARKDOWN_ANSWER = "# Result\n\nThe **build** passed.\n\n- first point\n- second point\n\n" +
  "| file | lines |\n|------|------:|\n| a.ts | 12 |\n\n```ts\nconst ok = true;\n```\n";

Deno.test("e2e: a typed prompt shows the streamed answer rendered as Markdown", opts, async () => {
  await withTui({
    script: [
      text(MARKDOWN_ANSWER, {
        pieceSize: 5,
        usage: { prompt_tokens: 3000, completion_tokens: 200 },
      }),
    ],
  }, async (s) => {
    s.type("summarize the build");
    s.keys("Enter");
    const pane = await s.waitFor(/ctx 3\.2k\/128k \(3%\)\s+idle\s*$/m);
    assert(pane.includes("› summarize the build"), pane);
    assert(pane.includes("● Result"), pane); // heading without '#' markers when colour is on
    assert(pane.includes("The build passed."), pane); // emphasis markers gone
    assert(pane.includes("• first point"), pane);
    assert(pane.includes("│ a.ts │    12 │"), pane);
    assert(pane.includes("    const ok = true;"), pane);
    const history = await Deno.readTextFile(`${s.stateHome}/scv/history.jsonl`);
    assertEquals(history, '"summarize the build"\n', "the prompt history persists");
  });
});

Deno.test(
  "e2e: under NO_COLOR the answer keeps Markdown markers instead of styles",
  opts,
  async () => {
    await withTui({
      script: [text(MARKDOWN_ANSWER, { usage: { prompt_tokens: 3000, completion_tokens: 200 } })],
      env: { NO_COLOR: "1" },
    }, async (s) => {
      s.type("summarize the build");
      s.keys("Enter");
      const pane = await s.waitFor(/ctx 3\.2k\/128k \(3%\)\s+idle\s*$/m);
      assert(pane.includes("● # Result"), pane);
      assert(pane.includes("```ts"), pane);
      const raw = s.capture(false, true);
      // deno-lint-ignore no-control-regex -- looking for escape codes is the point
      const colour = /\x1b\[[0-9;]*3[0-7]m/.exec(raw);
      assert(!colour, `no colour codes reach the terminal: ${JSON.stringify(colour?.[0])}`);
    });
  },
);

Deno.test("e2e: approving a bash call runs it and shows its output", opts, async () => {
  await withTui({
    script: [
      toolCalls([{ name: "bash", arguments: { command: "echo approved-$((40+2))" } }]),
      text("The command printed 42."),
    ],
  }, async (s) => {
    s.type("run the command");
    s.keys("Enter");
    const pane = await s.waitFor("[y] approve");
    assert(pane.includes("Approve bash?"), pane);
    assert(pane.includes("risk: process"), pane);
    assert(pane.includes("Run shell command: echo approved-$((40+2))"), pane);
    assert(pane.includes("[n] deny"), pane);
    assert(pane.includes("awaiting approval"), pane);
    s.type("y");
    const after = await s.waitFor("The command printed 42.");
    assert(after.includes("✓ bash"), after);
    assert(after.includes("approved-42"), after);
    assert(!after.includes("[y] approve"), after);
  });
});

Deno.test("e2e: denying a bash call does not run it", opts, async () => {
  await withTui({
    script: [
      toolCalls([{ name: "bash", arguments: { command: "touch denied-marker" } }]),
      text("Understood, not running it."),
    ],
  }, async (s) => {
    s.type("make the marker");
    s.keys("Enter");
    await s.waitFor("[y] approve");
    s.type("n");
    const pane = await s.waitFor("Understood, not running it.");
    assert(pane.includes("✗ bash"), pane);
    let exists = true;
    try {
      await Deno.stat(`${s.workspace}/denied-marker`);
    } catch {
      exists = false;
    }
    assertEquals(exists, false);
  });
});

Deno.test("e2e: Esc mid-stream cancels the turn and keeps the partial answer", opts, async () => {
  const pieces = Array.from({ length: 200 }, (_, i) => `w${i} `);
  await withTui({ script: [slowText(pieces, 40)] }, async (s) => {
    s.type("write a lot");
    s.keys("Enter");
    await s.waitFor(/w5\b/);
    s.keys("Escape");
    const pane = await s.waitFor("Turn cancelled");
    assert(pane.includes("(cancelled)"), pane);
    assert(!pane.includes("w199"), pane);
    await s.waitFor(/idle\s*$/m);
  });
});

Deno.test("e2e: typing continues while the agent streams", opts, async () => {
  const pieces = Array.from({ length: 60 }, (_, i) => `t${i} `);
  await withTui({ script: [slowText(pieces, 30)] }, async (s) => {
    s.type("stream please");
    s.keys("Enter");
    await s.waitFor(/t3\b/);
    s.type("next question typed early");
    await s.waitFor("t59");
    const pane = await s.waitFor(/idle\s*$/m);
    assert(pane.includes("› next question typed early"), pane);
  });
});

Deno.test("e2e: /clear clears the conversation after the server confirms", opts, async () => {
  await withTui({
    script: [
      text("An answer to forget.", { usage: { prompt_tokens: 500, completion_tokens: 20 } }),
    ],
  }, async (s) => {
    s.type("remember this");
    s.keys("Enter");
    await s.waitFor("An answer to forget.");
    await s.waitFor("ctx 520/128k");
    s.type("/clear");
    s.keys("Enter");
    const pane = await s.waitFor("Session cleared");
    assert(!pane.includes("An answer to forget."), pane);
    assert(pane.includes("ctx 0/128k (0%)"), pane);
  });
});

Deno.test(
  "e2e: resizing mid-stream re-lays the live region without corrupting scrollback",
  opts,
  async () => {
    const pieces = Array.from({ length: 120 }, (_, i) => `word${i} `);
    await withTui({ script: [slowText(pieces, 25)], width: 100, height: 30 }, async (s) => {
      s.type("stream and resize");
      s.keys("Enter");
      await s.waitFor(/word10\b/);
      s.resize(60, 24);
      await s.waitFor(/word40\b/);
      s.resize(120, 30);
      await s.waitFor(/word70\b/);
      s.resize(80, 20);
      await s.waitFor(/idle\s*$/m);
      const all = s.capture(true);
      // The live region (composer, status line) exists once; no stale copies were left behind.
      assertEquals(count(all, "ask anything"), 1, all);
      // One status line (its figure is scv's own count: the mock reports no usage).
      assertEquals(count(all, "/128k ("), 1, all);
      assertEquals(count(all, "streaming"), 0, all);
      assert(all.includes("word119"), all);
      assertEquals(count(all, "› stream and resize"), 1, all);
    });
  },
);

Deno.test("e2e: Ctrl+D exits cleanly and leaves a usable shell", opts, async () => {
  await withTui({ script: [] }, async (s) => {
    s.keys("C-d");
    await s.waitFor("tui-exit-status=0");
    s.type("stty -a | grep -o -- '-\\?icanon' ; echo shell-$((2+3))");
    s.keys("Enter");
    const pane = await s.waitFor("shell-5");
    assert(/^icanon$/m.test(pane), `terminal left in raw mode:\n${pane}`);
  });
});

/** Pids of the processes whose command line contains `needle`, from `ps -eo pid,args`. */
function pidsRunning(needle: string): number[] {
  const out = new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((l) => l.includes(needle))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid > 0 && pid !== Deno.pid);
}

async function waitUntil(ok: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return ok();
}

/**
 * Presses Ctrl+D once `command` runs and asserts that the TUI exits 0 and no process with
 * `command` in its command line is left within 3 s; whatever is left is killed either way.
 */
async function exitLeavesNoneOf(s: TuiSession, command: string): Promise<void> {
  try {
    assert(await waitUntil(() => pidsRunning(command).length > 0, 5000), "sleep started");
    s.keys("C-d");
    await s.waitFor("tui-exit-status=0");
    const gone = await waitUntil(() => pidsRunning(command).length === 0, 3000);
    assert(gone, `left running: ${command} (pids ${pidsRunning(command).join(", ")})`);
  } finally {
    for (const pid of pidsRunning(command)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
  }
}

for (const spawnServer of [false, true]) {
  Deno.test(
    `e2e: Ctrl+D while a bash tool runs leaves none of its processes (${
      spawnServer ? "spawned" : "in-process"
    } server)`,
    opts,
    async () => {
      // A command line no other process has: the test looks for it by name.
      const command = `sleep 4242${Math.floor(Math.random() * 1e6)}`;
      await withTui({
        script: [toolCalls([{ name: "bash", arguments: { command } }]), text("not reached")],
        config: { approval_policy: "never" },
        spawnServer,
      }, async (s) => {
        s.type("sleep for a while");
        s.keys("Enter");
        await s.waitFor("running bash");
        await exitLeavesNoneOf(s, command);
      });
    },
  );
}

Deno.test(
  "e2e: what a spawned server command left running is killed with its process group",
  opts,
  async () => {
    const command = `sleep 4243${Math.floor(Math.random() * 1e6)}`;
    await withTui({ script: [], serverCommandPrefix: `${command} & ` }, async (s) => {
      await exitLeavesNoneOf(s, command);
    });
  },
);

Deno.test(
  "e2e: a server command that never answers the handshake is reported in plain words",
  opts,
  async () => {
    const s = await TuiSession.start({
      script: [],
      args: ["--server-command", "echo 'listening, but not to you' >&2; cat >/dev/null"],
      waitForPrompt: false,
    });
    try {
      const pane = await s.waitFor("tui-exit-status=1", 20000);
      assert(pane.includes('The server did not answer "initialize" within 10 s'), pane);
      assert(pane.includes("listening, but not to you"), pane);
      s.type("echo still-$((2+2))");
      s.keys("Enter");
      await s.waitFor("still-4");
    } finally {
      await s.close();
    }
  },
);

/** The names of the live tmux servers this harness started (`scvtest-*` sockets). */
function liveTestServers(): string[] {
  const dir = `${Deno.env.get("TMUX_TMPDIR") || "/tmp"}/tmux-${Deno.uid()}`;
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.startsWith("scvtest-"));
  } catch {
    return [];
  }
  return names.filter((n) =>
    new Deno.Command("tmux", { args: ["-L", n, "has-session"], stdout: "null", stderr: "null" })
      .outputSync().success
  );
}

Deno.test(
  "e2e harness: a TUI that never shows its prompt leaves no tmux server",
  opts,
  async () => {
    const before = new Set(liveTestServers());
    const e = await assertRejects(
      () => TuiSession.start({ script: [], args: ["--version"], startTimeoutMs: 1500 }),
    );
    assert(e.message.includes("ask anything"), e.message);
    assertEquals(liveTestServers().filter((n) => !before.has(n)), []);
  },
);

Deno.test("e2e: SIGTERM exits with 143 and restores the terminal", opts, async () => {
  await withTui({ script: [] }, async (s) => {
    const ps = new Deno.Command("pgrep", { args: ["-f", `main.ts --config ${s.dir}`] })
      .outputSync();
    const pid = Number(new TextDecoder().decode(ps.stdout).trim().split("\n")[0]);
    assert(pid > 0, "the TUI process is found");
    Deno.kill(pid, "SIGTERM");
    await s.waitFor("tui-exit-status=143");
    s.type("stty -a | grep -o -- '-\\?icanon' ; echo shell-$((4+4))");
    s.keys("Enter");
    const pane = await s.waitFor("shell-8");
    assert(/^icanon$/m.test(pane), `terminal left in raw mode:\n${pane}`);
  });
});

Deno.test(
  "e2e: a bracketed paste of many lines fills the composer without sending",
  opts,
  async () => {
    await withTui({ script: [] }, async (s) => {
      const lines = Array.from({ length: 40 }, (_, i) => `pasted line ${i}`).join("\n");
      s.paste(lines);
      const pane = await s.waitFor("pasted line 39");
      assert(pane.includes("  pasted line 38"), pane);
      assert(/idle\s*$/m.test(pane), pane);
      assertEquals(s.mock.requests.length, 0, "nothing was sent");
    });
  },
);

Deno.test(
  "e2e: a paste holding escape sequences neither clears the screen nor hides the status line",
  opts,
  async () => {
    await withTui({ script: [] }, async (s) => {
      s.paste("abc\x1b[2J\x1b[Hxyz\x07");
      const pane = await s.waitFor("abcxyz");
      assert(pane.includes("Type a prompt and press Enter"), `the screen was wiped:\n${pane}`);
      assert(/^› abcxyz/m.test(pane), pane);
      assert(/ctx 0\/128k \(0%\)\s+idle\s*$/m.test(pane), `no status line:\n${pane}`);
      s.type("!");
      const after = await s.waitFor("abcxyz!");
      assert(/idle\s*$/m.test(after), after);
    });
  },
);

Deno.test(
  "e2e: a prompt over the server's frame limit is refused without locking the turn",
  opts,
  async () => {
    // A prompt limit above the frame limit lets the frame itself be refused: the server answers
    // an oversized frame with an error that has no request_id.
    await withTui({
      script: [text("Answered after the refusal.")],
      config: { max_client_frame_bytes: 4096, max_prompt_bytes: 100000 },
    }, async (s) => {
      s.paste("y".repeat(5000));
      await s.waitFor("yyyyyyyyyy");
      s.keys("Enter");
      const pane = await s.waitFor("it is back in the composer");
      assert(pane.includes("exceeds max_client_frame_bytes"), pane);
      assert(/idle\s*$/m.test(pane), pane);
      s.keys("C-c"); // clears the composer (no turn is running)
      await s.waitFor("ask anything");
      s.type("short question");
      s.keys("Enter");
      await s.waitFor("Answered after the refusal.");
    });
  },
);

Deno.test("e2e: Ctrl+C twice on an empty composer exits", opts, async () => {
  await withTui({ script: [] }, async (s) => {
    s.keys("C-c");
    await s.waitFor("Press Ctrl+C again to exit");
    s.keys("C-c");
    await s.waitFor("tui-exit-status=0");
  });
});

Deno.test("e2e: --server-command runs a spawned Peon server", opts, async () => {
  await withTui(
    { script: [text("Hello from the spawned server.")], spawnServer: true },
    async (s) => {
      s.type("hi");
      s.keys("Enter");
      await s.waitFor("Hello from the spawned server.");
      s.keys("C-d");
      await s.waitFor("tui-exit-status=0");
      const ps = new Deno.Command("pgrep", { args: ["-f", `server --config '?${s.dir}`] })
        .outputSync();
      assertEquals(new TextDecoder().decode(ps.stdout).trim(), "", "the server process is gone");
    },
  );
});

Deno.test(
  "e2e: a server that exits is reported in plain words and the terminal restored",
  opts,
  async () => {
    const s = await TuiSession.start({
      script: [],
      args: ["--server-command", "echo 'broken server' >&2; exit 3"],
      waitForPrompt: false,
    });
    try {
      const pane = await s.waitFor("tui-exit-status=1");
      assert(pane.includes("the server closed the connection (exit status 3)"), pane);
      assert(pane.includes("broken server"), pane);
      s.type("echo still-$((1+1))");
      s.keys("Enter");
      await s.waitFor("still-2");
    } finally {
      await s.close();
    }
  },
);

Deno.test("scv without a terminal points to scv exec and exits 2", async () => {
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const out = await new Deno.Command("deno", {
    args: ["run", "--no-prompt", "-A", main],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2);
  assert(new TextDecoder().decode(out.stderr).includes('use "scv exec PROMPT" for scripts'));
});

/** The text of the last user message of the mock's request `i`. */
function sentPrompt(s: TuiSession, i: number): unknown {
  const messages = s.mock.requests[i]?.body.messages ?? [];
  return messages.findLast((m) => m.role === "user")?.content;
}

Deno.test("e2e: Up and Down walk the prompt history in the composer", opts, async () => {
  await withTui({ script: [text("First answer."), text("Second answer.")] }, async (s) => {
    await ask(s, "first prompt", "First answer.");
    await ask(s, "second prompt", "Second answer.");
    s.type("a draft");
    await waitForComposer(s, ["a draft"]);
    s.keys("Up");
    await waitForComposer(s, ["second prompt"]);
    s.keys("Up");
    await waitForComposer(s, ["first prompt"]);
    s.keys("Up"); // nothing older: stays on the oldest
    s.keys("Down");
    await waitForComposer(s, ["second prompt"]);
    s.keys("Down");
    await waitForComposer(s, ["a draft"]);
    assertEquals(s.mock.requests.length, 2, "walking the history sends nothing");
  });
});

Deno.test(
  "e2e: the prompt history survives a restart with the same XDG_STATE_HOME",
  opts,
  async () => {
    await withTui({ script: [text("Noted.")] }, async (first) => {
      await ask(first, "remember me across restarts", "Noted.");
      first.keys("C-d");
      await first.waitFor("tui-exit-status=0");
      await withTui(
        { script: [], env: { XDG_STATE_HOME: first.stateHome } },
        async (second) => {
          second.keys("Up");
          await waitForComposer(second, ["remember me across restarts"]);
        },
      );
    });
  },
);

Deno.test(
  "e2e: the prompt history keeps only max_prompt_history_items, on disk and for Up",
  opts,
  async () => {
    await withTui({
      script: [text("A1."), text("A2."), text("A3."), text("A4.")],
      config: { max_prompt_history_items: 3 },
    }, async (s) => {
      for (let i = 1; i <= 4; i++) await ask(s, `prompt ${i}`, `A${i}.`);
      const path = `${s.stateHome}/scv/history.jsonl`;
      const deadline = Date.now() + 5000;
      let saved = "";
      while (Date.now() < deadline) {
        saved = await Deno.readTextFile(path).catch(() => "");
        if (saved.includes("prompt 4")) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assertEquals(saved, '"prompt 2"\n"prompt 3"\n"prompt 4"\n');
      for (let i = 0; i < 4; i++) s.keys("Up"); // one more than the history holds
      await waitForComposer(s, ["prompt 2"]);
      await new Promise((r) => setTimeout(r, 200));
      assertEquals(composerRows(s.capture()), ["prompt 2"], "nothing older than the bound");
    });
  },
);

/** Newline keys: how each is sent to the pane. */
const NEWLINE_KEYS: Array<[string, (s: TuiSession) => void]> = [
  ["Ctrl+J", (s) => s.keys("C-j")],
  ["Shift+Enter (kitty CSI 13;2u)", (s) => s.type("\x1b[13;2u")],
  ["Shift+Enter (xterm modifyOtherKeys CSI 27;2;13~)", (s) => s.type("\x1b[27;2;13~")],
  ["Alt+Enter (ESC CR)", (s) => s.type("\x1b\r")],
];

for (const [name, press] of NEWLINE_KEYS) {
  Deno.test(
    `e2e: ${name} inserts a newline and Enter sends both lines as one prompt`,
    opts,
    async () => {
      await withTui({ script: [text("Two lines received.")] }, async (s) => {
        s.type("line one");
        await waitForComposer(s, ["line one"]);
        press(s);
        s.type("line two");
        await waitForComposer(s, ["line one", "line two"]);
        assertEquals(s.mock.requests.length, 0, "the newline key sent nothing");
        s.keys("Enter");
        await s.waitFor("Two lines received.");
        assertEquals(s.mock.requests.length, 1);
        assertEquals(sentPrompt(s, 0), "line one\nline two");
      });
    },
  );
}
