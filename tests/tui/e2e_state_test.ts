/**
 * End-to-end tests of the TUI's client state in a real terminal (tmux): prompt history editing.
 */
import { assertEquals } from "../support/assert.ts";
import { text } from "../support/mock_openai.ts";
import { HAS_TMUX, TuiSession, type TuiSessionOptions } from "./tmux_harness.ts";

const ignore = !HAS_TMUX;
const opts = { ignore, sanitizeOps: false, sanitizeResources: false };

async function withTui(
  options: TuiSessionOptions,
  fn: (s: TuiSession) => Promise<void>,
): Promise<void> {
  const s = await TuiSession.start(options);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

/**
 * The composer's rows on `pane`: the lines between the last two rules, trimmed (the prompt
 * mark, the indent of continuation rows and the cursor cell before a placeholder go).
 */
function composerRows(pane: string): string[] {
  const lines = pane.split("\n");
  const rules = lines.flatMap((l, i) => (/^─{10,}\s*$/.test(l) ? [i] : []));
  if (rules.length < 2) return [];
  const [top, bottom] = rules.slice(-2) as [number, number];
  return lines.slice(top + 1, bottom).map((l) => l.replace(/^› /, "").trim());
}

/** Waits until the composer shows exactly `rows`, or fails with the pane. */
async function waitForComposer(s: TuiSession, rows: string[], timeoutMs = 10000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let pane = "";
  while (Date.now() < deadline) {
    pane = s.capture();
    if (JSON.stringify(composerRows(pane)) === JSON.stringify(rows)) return pane;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `Timed out waiting for the composer to show ${JSON.stringify(rows)}; it shows ${
      JSON.stringify(composerRows(pane))
    }; the pane:\n${pane}`,
  );
}

/** Sends `prompt` and waits for `answer` and the idle status line. */
async function ask(s: TuiSession, prompt: string, answer: string): Promise<void> {
  s.type(prompt);
  s.keys("Enter");
  await s.waitFor(answer);
  await s.waitFor(/idle\s*$/m);
  await waitForComposer(s, ["ask anything · /help for commands"]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
      await sleep(200);
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
      await sleep(300);
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
