/**
 * End-to-end tests of the TUI's client state in a real terminal (tmux): prompt history editing,
 * what an exit leaves in scrollback, bursts of finished items, requests the server does not
 * confirm, and streamed reference links. Some run against a small scripted Peon server (below)
 * that misbehaves on purpose.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text } from "../support/mock_openai.ts";
import type { TuiSessionOptions } from "./tmux_harness.ts";
import {
  ask,
  composerRows,
  delay,
  E2E_OPTS as opts,
  slowText,
  waitForComposer,
  withTui,
} from "./e2e_support.ts";

Deno.test(
  "e2e: editing a recalled prompt keeps the draft, which Down past the newest gives back",
  opts,
  async () => {
    await withTui({ script: [text("First answer.")] }, async (s) => {
      await ask(s, "older entry", "First answer.");
      s.type("my precious draft");
      await waitForComposer(s, ["my precious draft"]);
      s.keys("Up");
      await waitForComposer(s, ["older entry"]);
      s.type("!");
      await waitForComposer(s, ["older entry!"]);
      s.keys("Down", "Down", "Down");
      await waitForComposer(s, ["my precious draft"]);
      await delay(200);
      assertEquals(composerRows(s.capture()), ["my precious draft"]);
    });
  },
);

Deno.test(
  "e2e: at 30 columns Up moves the cursor up a row of a wrapped prompt before the history",
  opts,
  async () => {
    await withTui({ script: [text("Ok.")], width: 30, height: 24 }, async (s) => {
      s.type("previous prompt");
      s.keys("Enter");
      await s.waitFor("Ok.");
      await waitForComposer(s, ["ask anything · /help for …"]); // idle, the placeholder cut
      const long = "x".repeat(30) + " " + "y".repeat(39); // 70 characters, three rows
      s.type(long);
      const rows = ["x".repeat(26), "xxxx " + "y".repeat(21), "y".repeat(18)];
      await waitForComposer(s, rows);
      s.keys("Up");
      await delay(300);
      assertEquals(composerRows(s.capture()), rows, "Up stayed in the prompt");
      // The cursor cell (drawn inverse) went from the end of the last row to column 18 above.
      const cursorLine = s.capture(false, true).split("\n").find((l) => l.includes("\x1b[7m"));
      assertEquals(cursorLine?.slice(0, cursorLine.indexOf("\x1b[7m")), "  xxxx " + "y".repeat(13));
      s.keys("Up", "Up"); // to the first row, then from it into the history
      await waitForComposer(s, ["previous prompt"]);
      s.keys("Down");
      await waitForComposer(s, rows);
    });
  },
);

/**
 * A scripted Peon server: it answers the handshake, then answers `turn.start` as its mode says.
 * `exit`: a delta, then it exits with status 7. `hang`: a delta, then nothing; a `turn.cancel` is
 * ignored. `many N`: N `assistant.completed` in one burst, then `turn.completed`; its session
 * reports max_transcript_items 5. `session.clear` is never answered.
 */
const FAKE_SERVER = `
const [mode, count] = Deno.args;
const enc = new TextEncoder();
let seq = 0;
const send = (o) => Deno.stdout.writeSync(enc.encode(JSON.stringify(o) + "\\n"));
const ev = (rid, type, extra = {}) =>
  ({ type, request_id: rid, session_id: "S1", turn_id: "T1", seq: ++seq, ...extra });
const dec = new TextDecoder();
let rest = "";
for await (const chunk of Deno.stdin.readable) {
  rest += dec.decode(chunk, { stream: true });
  const lines = rest.split("\\n");
  rest = lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    const rid = m.request_id;
    if (m.type === "initialize") {
      send({ type: "initialized", request_id: rid, protocol_version: 1,
        server: { name: "fake", version: "0" } });
    } else if (m.type === "session.start") {
      send({ type: "session.started", request_id: rid, session_id: "S1", cwd: m.cwd,
        model: "fake-model", context_max_tokens: 1000, max_server_frame_bytes: 8388608,
        max_transcript_bytes: 8388608, max_transcript_items: mode === "many" ? 5 : 10000,
        max_prompt_history_bytes: 1048576, max_prompt_history_items: 200 });
    } else if (m.type === "turn.start") {
      send(ev(rid, "turn.started"));
      if (mode === "exit") {
        send(ev(rid, "assistant.delta", { content: "partial answer then death" }));
        await new Promise((r) => setTimeout(r, 500));
        Deno.exit(7);
      } else if (mode === "hang") {
        send(ev(rid, "assistant.delta", { content: "I will hang now" }));
      } else if (mode === "many") {
        for (let i = 0; i < Number(count); i++) {
          send(ev(rid, "assistant.completed", { content: "burst message " + i }));
        }
        const usage = { input_tokens: 10, output_tokens: 5 };
        send(ev(rid, "turn.completed", { steps: 1, usage }));
      }
    }
  }
}
`;

/** Options for a TUI talking to {@link FAKE_SERVER} in `mode`. */
function fakeServer(mode: string): TuiSessionOptions {
  return {
    script: [],
    files: { "fake_peon.js": FAKE_SERVER },
    args: ["--server-command", `deno run --no-prompt fake_peon.js ${mode}`],
  };
}

Deno.test(
  "e2e: Ctrl+D mid-stream leaves the partial answer in scrollback, marked interrupted",
  opts,
  async () => {
    const pieces = Array.from({ length: 200 }, (_, i) => `w${i} `);
    await withTui({ script: [slowText(pieces, 50)] }, async (s) => {
      s.type("stream");
      s.keys("Enter");
      await s.waitFor(/w30\b/);
      s.keys("C-d");
      const pane = await s.waitFor("tui-exit-status=0", 10000, true);
      assert(/w0 w1 w2 .*w30\b/s.test(pane), pane);
      assert(pane.includes("(interrupted)"), pane);
      assert(!pane.includes("w199"), pane);
    });
  },
);

Deno.test(
  "e2e: a server that dies mid-stream leaves the partial answer in scrollback",
  opts,
  async () => {
    await withTui(fakeServer("exit"), async (s) => {
      s.type("hi");
      s.keys("Enter");
      const pane = await s.waitFor("tui-exit-status=1", 15000, true);
      assert(pane.includes("the server closed the connection (exit status 7)"), pane);
      assert(pane.includes("partial answer then death"), pane);
      assert(pane.includes("(interrupted)"), pane);
    });
  },
);

Deno.test(
  "e2e: Ctrl+D while a spawned server hangs mid-stream keeps the partial answer",
  opts,
  async () => {
    await withTui(fakeServer("hang"), async (s) => {
      s.type("hi");
      s.keys("Enter");
      await s.waitFor("I will hang now");
      s.keys("C-d");
      const pane = await s.waitFor("tui-exit-status=0", 15000, true);
      assert(pane.includes("I will hang now"), pane);
      assert(pane.includes("(interrupted)"), pane);
    });
  },
);

Deno.test(
  "e2e: a burst of more finished items than max_transcript_items all reach scrollback",
  opts,
  async () => {
    // 300 is more than the outbox holds before a flush, so the flush path runs too.
    await withTui(fakeServer("many 300"), async (s) => {
      s.type("many");
      s.keys("Enter");
      await s.waitFor("burst message 299");
      await s.waitFor(/idle\s*$/m);
      const all = s.capture(true);
      const missing = Array.from({ length: 300 }, (_, i) => i)
        .filter((i) => !new RegExp(`burst message ${i}\\b`).test(all));
      assertEquals(missing, [], all);
    });
  },
);

Deno.test(
  "e2e: a cancel the server ignores is reported, and Ctrl+C twice still exits",
  opts,
  async () => {
    await withTui(fakeServer("hang"), async (s) => {
      s.type("hi");
      s.keys("Enter");
      await s.waitFor("I will hang now");
      s.keys("Escape");
      await s.waitFor(/cancelling\s*$/m);
      const pane = await s.waitFor("has not confirmed the cancel", 10000);
      assert(pane.includes("Cancelling… not confirmed; Ctrl+C twice or Ctrl+D exits"), pane);
      s.keys("C-c");
      await s.waitFor("Press Ctrl+C again to exit");
      s.keys("C-c");
      await s.waitFor("tui-exit-status=0");
    });
  },
);

Deno.test(
  "e2e: a /clear the server never confirms stops showing clearing after a timeout",
  opts,
  async () => {
    await withTui(fakeServer("hang"), async (s) => {
      s.type("/clear");
      s.keys("Enter");
      await s.waitFor(/clearing\s*$/m);
      const pane = await s.waitFor("has not confirmed /clear", 10000);
      assert(/idle\s*$/m.test(pane), pane);
    });
  },
);

Deno.test(
  "e2e: a streamed reference-style link is shown with its URL",
  opts,
  async () => {
    const answer = "See [the docs][d] for details.\n\nMore text here.\n\n" +
      "[d]: https://example.com/docs\n";
    await withTui({ script: [text(answer, { pieceSize: 4 })] }, async (s) => {
      s.type("docs please");
      s.keys("Enter");
      await s.waitFor("More text here.");
      const pane = await s.waitFor(/idle\s*$/m);
      assert(pane.includes("● See the docs (https://example.com/docs) for details."), pane);
      assert(!pane.includes("[d]"), pane);
    });
  },
);
