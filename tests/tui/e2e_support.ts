/**
 * What the end-to-end TUI tests share: their options, a session scope, slow replies, and
 * reading the composer off a captured pane.
 *
 * @module
 */
import { type MockReply, textChunk } from "../support/mock_openai.ts";
import { HAS_TMUX, TuiSession, type TuiSessionOptions } from "./tmux_harness.ts";

/** Options of every e2e test: ignored without tmux; the TUI's child processes outlive a step. */
export const E2E_OPTS = { ignore: !HAS_TMUX, sanitizeOps: false, sanitizeResources: false };

/** The placeholder an empty composer shows while no turn runs. */
export const EMPTY_COMPOSER = "ask anything · /help for commands";

/** Resolves after `ms` milliseconds. */
export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` with a started TUI session, closing it whatever happens. */
export async function withTui(
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

/** A reply streaming `pieces` with a pause before each, so a test can act mid-stream. */
export function slowText(pieces: string[], delayMs: number): MockReply {
  return {
    kind: "stream",
    delayMs,
    events: [
      { choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
      ...pieces.map((p) => textChunk(p)),
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ],
  };
}

/** How many times `needle` occurs in `haystack`. */
export function count(haystack: string, needle: string | RegExp): number {
  if (typeof needle === "string") return haystack.split(needle).length - 1;
  return [...haystack.matchAll(new RegExp(needle.source, needle.flags + "g"))].length;
}

/**
 * The composer's rows on `pane`: the lines between the last two rules, trimmed (the prompt
 * mark, the indent of continuation rows and the cursor cell before a placeholder go).
 */
export function composerRows(pane: string): string[] {
  const lines = pane.split("\n");
  const rules = lines.flatMap((l, i) => (/^─{10,}\s*$/.test(l) ? [i] : []));
  if (rules.length < 2) return [];
  const [top, bottom] = rules.slice(-2) as [number, number];
  return lines.slice(top + 1, bottom).map((l) => l.replace(/^› /, "").trim());
}

/** Waits until the composer shows exactly `rows`, or fails with the pane. */
export async function waitForComposer(
  s: TuiSession,
  rows: string[],
  timeoutMs = 10000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let pane = "";
  while (Date.now() < deadline) {
    pane = s.capture();
    if (JSON.stringify(composerRows(pane)) === JSON.stringify(rows)) return pane;
    await delay(50);
  }
  throw new Error(
    `Timed out waiting for the composer to show ${JSON.stringify(rows)}; it shows ${
      JSON.stringify(composerRows(pane))
    }; the pane:\n${pane}`,
  );
}

/** Sends `prompt` and waits for `answer`, the idle status line and an empty composer. */
export async function ask(s: TuiSession, prompt: string, answer: string): Promise<void> {
  s.type(prompt);
  s.keys("Enter");
  await s.waitFor(answer);
  await s.waitFor(/idle\s*$/m);
  await waitForComposer(s, [EMPTY_COMPOSER]);
}
