/**
 * The screen as a pure function of client state: {@link renderItem} turns a finished item into
 * the lines written once to scrollback, {@link renderLive} turns the state into the lines of the
 * live region at the bottom (streaming text, running tools, approval, composer, status line).
 * A {@link RenderCache} only memoises work (wrapped stream rows, the composer), so the cost of
 * a delta is proportional to what changed, never to the transcript's length.
 *
 * @module
 */
import { type Buffer, visualRows } from "./composer.ts";
import { chipLabels } from "./state/images.ts";
import { renderDiff, renderUnifiedDiff } from "./diff_view.ts";
import { renderMarkdown } from "./markdown.ts";
import { rewindRows } from "./rewind_view.ts";
import {
  type ClientState,
  contextPercent,
  contextUnknown,
  formatTokens,
  formatUsd,
  reasoningLine,
  sandboxLabel,
  sessionDate,
  shownSessions,
  type TranscriptItem,
} from "./state/mod.ts";
import { controlPicture, displayWidth, sanitize, type Style, truncate, wrapPlain } from "./text.ts";
import { ruleText } from "./state/rules_text.ts";
import type { PlanLine } from "../protocol/mod.ts";
import { PLAN_OFFER } from "./state/modes.ts";

/** The terminal geometry and styling a frame is rendered for. */
export interface View {
  /** Usable columns (one less than the terminal's, so no line ever autowraps). */
  width: number;
  /** Terminal rows; the live region takes at most `height - 1`. */
  height: number;
  style: Style;
  /** The user's home directory, shown as `~` in the status line. */
  home?: string | undefined;
}

const TOOL_PREVIEW_LINES = 8;
const DIFF_PREVIEW_LINES = 40;
const MAX_COMPOSER_ROWS = 10;
/** Summary rows of an approval that come before the composer; more follow where there is room. */
const MAX_SUMMARY_ROWS = 3;
/** The most summary rows an approval shows. */
const MAX_SUMMARY_ROWS_IN_ROOM = 24;

/**
 * Lines for one finished item, as written to scrollback, followed by one blank line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderItem } from "./render.ts";
 * import { makeStyle } from "./text.ts";
 * const lines = renderItem({ kind: "user", text: "hello" }, { width: 40, height: 20, style: makeStyle(false) });
 * assert(lines[0] === "› hello" && lines.at(-1) === "");
 * ```
 */
export function renderItem(item: TranscriptItem, view: View): string[] {
  const s = view.style;
  const w = Math.max(10, view.width);
  let lines: string[];
  switch (item.kind) {
    case "user":
      lines = prefixRows(
        sanitize(item.text).split("\n").flatMap((l) => wrapPlain(l, w - 2).map((r) => r.text)),
        s.bold(s.cyan("› ")),
        "  ",
      ).map((l) => s.bold(l));
      for (const chip of item.images ?? []) lines.push(s.cyan(truncate(`  ${sanitize(chip)}`, w)));
      break;
    case "assistant": {
      const body = renderMarkdown(item.text, { width: w - 2, style: s });
      lines = prefixRows(body.length ? body : [""], item.continued ? "  " : s.magenta("● "), "  ");
      if (item.note) lines.push(s.gray(`  (${item.note})`));
      break;
    }
    case "tool":
      lines = renderTool(item, w, s);
      break;
    case "plan":
      lines = planLines(item.steps, w, s, item.steps.length + 1);
      break;
    case "reasoning": {
      // Dimmed: it is the model thinking, not its answer.
      const body = item.full
        ? sanitize(item.text).split("\n").flatMap((l) => wrapPlain(l, w - 2).map((r) => r.text))
        : [truncate(sanitize(item.text), w - 2 - 24) + "  (Ctrl+O shows all)"];
      lines = prefixRows(body.length ? body : [""], "✻ ", "  ").map((l) => s.dim(s.gray(l)));
      break;
    }
    case "notice": {
      const mark = item.level === "error"
        ? s.red("✗ ")
        : item.level === "warn"
        ? s.yellow("! ")
        : s.gray("· ");
      const color = item.level === "error" ? s.red : item.level === "warn" ? s.yellow : s.gray;
      const rows = sanitize(item.text).split("\n").flatMap((l) => wrapHanging(l, w - 2));
      lines = prefixRows(rows, mark, "  ").map((l) => color(l));
      break;
    }
  }
  lines.push("");
  return lines;
}

/** The mark and style of each step state in a checklist. */
function stepRow(step: PlanLine, w: number, s: Style): string {
  const text = sanitize(step.text).replace(/\n/g, " ");
  switch (step.status) {
    case "done":
      return s.green("  ✓ ") + s.dim(truncate(text, w - 4));
    case "in_progress":
      return s.yellow("  ▸ ") + s.bold(truncate(text, w - 4));
    case "pending":
      return s.gray("  ○ ") + truncate(text, w - 4);
  }
}

/**
 * A plan as a checklist in at most `max` rows (at least 2): a head with the count done, then the
 * steps; when they do not all fit, the window keeps the step in progress (else the first not
 * done) in view and its last row counts the steps left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planLines } from "./render.ts";
 * import { makeStyle } from "./text.ts";
 * const rows = planLines([{ text: "Read", status: "done" }, { text: "Fix", status: "in_progress" }],
 *   40, makeStyle(false), 10);
 * assert.deepEqual(rows, ["☰ Plan · 1 of 2 done", "  ✓ Read", "  ▸ Fix"]);
 * ```
 */
export function planLines(steps: readonly PlanLine[], w: number, s: Style, max: number): string[] {
  const done = steps.filter((x) => x.status === "done").length;
  const head = s.bold(truncate(
    steps.length === 0 ? "☰ Plan · cleared" : `☰ Plan · ${done} of ${steps.length} done`,
    w,
  ));
  const room = Math.max(1, max - 1);
  if (steps.length <= room) return [head, ...steps.map((x) => stepRow(x, w, s))];
  const shownCount = Math.max(1, room - 1);
  const focus = Math.max(0, steps.findIndex((x) => x.status !== "done"));
  const current = steps.findIndex((x) => x.status === "in_progress");
  const at = current === -1 ? focus : current;
  const first = Math.min(Math.max(0, at - 1), steps.length - shownCount);
  const rows = steps.slice(first, first + shownCount).map((x) => stepRow(x, w, s));
  const before = first;
  const after = steps.length - first - shownCount;
  const more = [before > 0 ? `${before} above` : "", after > 0 ? `${after} below` : ""]
    .filter((x) => x !== "").join(", ");
  return [head, ...rows, s.gray(truncate(`  … ${more}`, w))];
}

/**
 * Wraps one line of a notice with its continuation rows aligned under its text: past its
 * leading spaces, or past a short leading label such as `Keys: ` (at most half the width).
 */
function wrapHanging(line: string, width: number): string[] {
  const rows = wrapPlain(line, width);
  if (rows.length < 2) return rows.map((r) => r.text);
  // A command row ("/help   this list") that does not fit: its description goes under its
  // name, indented, instead of the column gap wrapping into the rows.
  const table = /^( *(?:[^\s:][^:]{0,15}: +)?)(\/\S+(?: \[[^\]]*\])?) {2,}(\S.*)$/.exec(line);
  if (table) {
    const [, lead, name, desc] = table as unknown as [string, string, string, string];
    const indent = displayWidth(lead) + 4;
    if (displayWidth(lead + name) <= width && indent <= width / 2) {
      return [
        lead + name,
        ...wrapPlain(desc, width - indent).map((r) => " ".repeat(indent) + r.text),
      ];
    }
  }
  const lead = /^ +(?=\S)/.exec(line) ?? /^[^\s:][^:]{0,15}: +(?=\S)/.exec(line);
  const indent = lead ? displayWidth(lead[0]) : 0;
  if (indent === 0 || indent > width / 2) return rows.map((r) => r.text);
  const rest = wrapPlain(line.slice(rows[1]!.start), width - indent);
  return [rows[0]!.text, ...rest.map((r) => " ".repeat(indent) + r.text)];
}

function prefixRows(rows: string[], first: string, rest: string): string[] {
  return rows.map((r, i) => (i === 0 ? first : rest) + r);
}

function renderTool(
  item: Extract<TranscriptItem, { kind: "tool" }>,
  w: number,
  s: Style,
): string[] {
  const mark = item.success ? s.green("✓") : s.red("✗");
  const head = `${mark} ${s.bold(item.name)} ${sanitize(item.summary).replace(/\n/g, " ")}`;
  const lines = [truncate(head, w)];
  const body: string[] = [];
  const args = (typeof item.args === "object" && item.args !== null ? item.args : {}) as Record<
    string,
    unknown
  >;
  const str = (k: string) => (typeof args[k] === "string" ? args[k] as string : undefined);
  const showDiff = item.success && (item.name === "edit_file" || item.name === "write_file");
  const diffOptions = { width: w - 4, style: s, maxLines: DIFF_PREVIEW_LINES };
  // edit_file's output holds its diff of the whole file, with the file's line numbers; a
  // diff of old_string against new_string would number the lines from the snippet's start.
  const toolDiff = showDiff && item.name === "edit_file"
    ? renderUnifiedDiff(item.output, diffOptions)
    : [];
  if (toolDiff.length > 0) {
    body.push(...toolDiff);
    if (item.truncated) body.push(s.gray("(output truncated by the server)"));
  } else if (showDiff && item.name === "edit_file" && str("old_string") !== undefined) {
    body.push(...renderDiff(str("old_string")!, str("new_string") ?? "", diffOptions));
  } else if (showDiff && item.name === "write_file" && str("content") !== undefined) {
    const added = renderDiff("", str("content")!, diffOptions);
    // An overwrite is not a creation: the TUI never saw the old content, so it says so
    // instead of a "@@ -0,0" hunk that would claim the file was empty.
    if (item.output.startsWith("Overwrote") && added.length > 0) {
      body.push(s.gray("replaced the whole file (its earlier content is not shown) with:"));
      body.push(...added.slice(1));
    } else body.push(...added);
  } else {
    body.push(...outputPreview(item.output, w - 4, s, !item.success));
    if (item.truncated) body.push(s.gray("(output truncated by the server)"));
  }
  body.forEach((l, i) => lines.push(s.gray(i === 0 ? "  ⎿ " : "    ") + l));
  return lines;
}

/** The first lines of a tool's output, each cut to the width, with a count of the rest. */
function outputPreview(output: string, w: number, s: Style, failed: boolean): string[] {
  const text = sanitize(output).replace(/\n+$/, "");
  if (text === "") return [s.gray("(no output)")];
  const all = text.split("\n");
  const shown = all.slice(0, TOOL_PREVIEW_LINES).map((l) => {
    const cut = truncate(l, w);
    return failed ? s.red(cut) : s.dim(cut);
  });
  if (all.length > TOOL_PREVIEW_LINES) {
    shown.push(s.gray(`… ${all.length - TOOL_PREVIEW_LINES} more lines`));
  }
  return shown;
}

/** Wrapped rows of the streaming text, extended incrementally as deltas arrive. */
interface StreamRows {
  width: number;
  /** Rows that can no longer change (all but the last row of the text so far). */
  stable: string[];
  /** Source offset where the unstable tail starts. */
  offset: number;
  /** The message the rows belong to (`ClientState.streamId`). */
  id: number;
}

/** Memoised work between frames; keeps output identical to an uncached render. */
export interface RenderCache {
  stream?: StreamRows;
  composer?: {
    text: string;
    cursor: number;
    width: number;
    placeholder: string;
    rows: string[];
    cursorRow: number;
  };
}

/** A fresh, empty {@link RenderCache}. */
export function createRenderCache(): RenderCache {
  return {};
}

/** The wrapped rows of `text`, reusing the stable rows computed for a prefix of it. */
function streamRows(cache: RenderCache, id: number, text: string, width: number): string[] {
  let c = cache.stream;
  if (!c || c.id !== id || c.width !== width || text.length < c.offset) {
    c = { id, width, stable: [], offset: 0 };
  }
  // Complete logical lines become stable rows.
  let nl = text.indexOf("\n", c.offset);
  while (nl !== -1) {
    for (const r of wrapPlain(text.slice(c.offset, nl), width)) c.stable.push(r.text);
    c.offset = nl + 1;
    nl = text.indexOf("\n", c.offset);
  }
  const tail = wrapPlain(text.slice(c.offset), width, c.offset);
  // All rows but the last of the tail are stable too: appending text cannot change them.
  for (let i = 0; i < tail.length - 1; i++) c.stable.push(tail[i]!.text);
  const last = tail[tail.length - 1]!;
  c.offset = last.start;
  cache.stream = c;
  return [last.text];
}

/** The last `count` rows of the streaming text. */
function streamTail(
  cache: RenderCache,
  id: number,
  text: string,
  width: number,
  count: number,
): string[] {
  if (count <= 0) return [];
  const tail = streamRows(cache, id, text, width);
  const stable = cache.stream!.stable;
  const fromStable = Math.max(0, count - tail.length);
  return [...stable.slice(Math.max(0, stable.length - fromStable)), ...tail].slice(-count);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Lays out the composer: rows hard-wrapped at `width` columns by display width, with the
 * cursor drawn as an inverse cell, and the row the cursor is on. Control characters are shown
 * as pictures (`␛`), never written raw.
 */
export function layoutComposer(
  b: Buffer,
  width: number,
  s: Style,
  placeholder = "",
): { rows: string[]; cursorRow: number } {
  const w = Math.max(2, width);
  if (b.text === "") {
    const ph = placeholder ? s.gray(truncate(placeholder, w - 1)) : "";
    return { rows: [s.inverse(" ") + ph], cursorRow: 0 };
  }
  // The rows come from the composer's own wrap rule, so Up/Down move by the rows drawn here.
  const rows: string[] = [];
  let cursorRow = 0;
  for (const r of visualRows(b.text, w)) {
    let row = "";
    for (const { segment, index } of segmenter.segment(b.text.slice(r.start, r.end))) {
      // The buffer is cleaned on insert; should a control character get in anyway, it is drawn
      // as a visible picture of the same length in graphemes, so the cursor offsets still hold.
      const g = controlPicture(segment);
      if (r.start + index === b.cursor) {
        cursorRow = rows.length;
        row += s.inverse(g);
      } else {
        row += g;
      }
    }
    if (r.lastOfLine && r.end === b.cursor) {
      cursorRow = rows.length;
      row += s.inverse(" ");
    }
    rows.push(row);
  }
  return { rows, cursorRow };
}

/**
 * The composer's width in a view `viewWidth` columns wide, as {@link renderLive} lays it out:
 * the view (at least 10 columns) less the prompt mark "› ". The shell gives it to the state,
 * so Up/Down move by the rows drawn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { composerWidth } from "./render.ts";
 * assert.equal(composerWidth(80), 78);
 * assert.equal(composerWidth(4), 8);
 * ```
 */
export function composerWidth(viewWidth: number): number {
  return Math.max(10, viewWidth) - 2;
}

function composerRows(cache: RenderCache, state: ClientState, width: number, s: Style) {
  const placeholder = state.picker?.startup && !state.session
    ? "pick a session above · Esc starts a new one"
    : state.connection !== "ready"
    ? "connecting…"
    : state.turn?.phase === "cancelling"
    ? "cancelling… · Ctrl+C twice or Ctrl+D exits"
    : state.turn
    ? "type ahead; Enter queues the prompt · Esc cancels the turn"
    : "ask anything · /help for commands";
  const c = cache.composer;
  if (
    c && c.text === state.composer.text && c.cursor === state.composer.cursor &&
    c.width === width && c.placeholder === placeholder
  ) return c;
  const laid = layoutComposer(state.composer, width, s, placeholder);
  cache.composer = {
    text: state.composer.text,
    cursor: state.composer.cursor,
    width,
    placeholder,
    ...laid,
  };
  return cache.composer;
}

function shortenPath(path: string, home: string | undefined, max: number): string {
  let p = path;
  if (home && (p === home || p.startsWith(home + "/"))) p = "~" + p.slice(home.length);
  if (displayWidth(p) <= max) return p;
  // Keep the end of the path, which names the project.
  const chars = [...p];
  let tail = "";
  for (let i = chars.length - 1; i >= 0; i--) {
    if (displayWidth(chars[i]! + tail) > max - 1) break;
    tail = chars[i]! + tail;
  }
  return "…" + tail;
}

function turnLabel(state: ClientState): string {
  if (state.connection === "closed") return "disconnected";
  if (state.connection === "connecting") return state.picker ? "pick a session" : "connecting";
  if (state.clearing) return "clearing";
  const t = state.turn;
  if (!t) {
    if (state.picker) return "pick a session";
    if (state.pending.start) return "starting session";
    if (state.pending.compact) return "compacting";
    if (state.pending.history) return "loading history";
    return "idle";
  }
  switch (t.phase) {
    case "starting":
    case "thinking":
      return "thinking";
    case "streaming":
      return "streaming";
    case "tool": {
      const running = state.tools.find((x) => x.status === "running");
      return running ? `running ${running.name}` : "tool call";
    }
    case "approval":
      return "awaiting approval";
    case "cancelling":
      return "cancelling";
  }
}

/**
 * The status line: model, workspace, context use (tokens and percent of the window, then the
 * session's cost when the server reports one) and the
 * turn state. The turn state is always shown, at the right; when the width is short the
 * others give way to it: the workspace is shortened from its start, then left out, then the
 * model, then the context use shrinks to its percent, then goes.
 */
export function statusLine(state: ClientState, view: View): string {
  const s = view.style;
  const width = Math.max(1, view.width);
  const ctx = state.contextTokens ?? 0;
  const max = state.session?.contextMaxTokens;
  // A resumed session's use is not known until its next turn reports it; 0 would mislead.
  const unknown = contextUnknown(state);
  const used = unknown ? "?" : formatTokens(ctx);
  const percent = unknown || !max ? "?" : String(contextPercent(ctx, max));
  const cost = state.session?.costUsd;
  const ctxText = (max ? `ctx ${used}/${formatTokens(max)} (${percent}%)` : `ctx ${used}`) +
    (cost !== undefined ? ` · ${formatUsd(cost)}` : "");
  const label = truncate(turnLabel(state), width);
  const right = label === "idle" ? s.gray(label) : s.yellow(label);
  // What is left of the label and one space before it.
  const room = width - displayWidth(label) - 1;
  const sandbox = state.session?.sandbox;
  // The sandbox goes before the context figure, which stays next to the turn state.
  const sb = sandbox ? `${sandboxLabel(sandbox.mode)} · ` : "";
  // Plan mode leads, and gives way last: it says why writes are refused.
  const mode = state.approvalPolicy === "plan" ? "plan mode · " : "";
  const cwdMax = Math.max(
    6,
    room - displayWidth(state.model) - ctxText.length - sb.length - mode.length - 6,
  );
  const candidates = [
    `${state.model} · ${shortenPath(state.cwd, view.home, cwdMax)} · ${sb}${ctxText}`,
    `${state.model} · ${sb}${ctxText}`,
    `${state.model} · ${ctxText}`,
    ctxText,
    max ? `ctx ${percent}%` : "",
  ].map((c) => mode + c);
  if (mode) candidates.push("plan mode");
  const left = candidates.find((c) => displayWidth(c) <= room) ?? "";
  const gap = width - displayWidth(left) - displayWidth(label);
  const shown = left.startsWith("plan mode")
    ? s.yellow("plan mode") + s.gray(left.slice("plan mode".length))
    : left
    ? s.gray(left)
    : "";
  return shown + " ".repeat(Math.max(0, gap)) + right;
}

function liveTools(state: ClientState, w: number, s: Style): string[] {
  // The call the approval box asks about is shown there, not twice.
  const asked = state.approval?.callId;
  const shown = state.tools.filter((t) => t.callId !== asked).slice(-5);
  return shown.map((t) => {
    const status = t.status === "running"
      ? s.yellow("running")
      : t.status === "awaiting"
      ? s.yellow("waiting for approval")
      : s.gray("proposed");
    return truncate(
      `${s.yellow("⋯")} ${s.bold(t.name)} ${sanitize(t.summary).replace(/\n/g, " ")} ${
        s.gray("·")
      } ${status}`,
      w,
    );
  });
}

/** The approval prompt's rows, by part, each part with its box prefixes. */
interface ApprovalBox {
  /** `Approve NAME?` and the risk, wrapped. */
  head: string[];
  /** The call's summary, all its rows. */
  summary: string[];
  /** The first `count` rows of the summary, the last marked `…` when more are left out. */
  summaryRows(count: number): string[];
  /** The working directory. */
  where: string[];
  /** The diff of a file change (`write_file`, `edit_file`), all its rows; empty without one. */
  preview: string[];
  /**
   * `count` rows of the diff from the approval's scroll offset (kept so the window is full); the
   * last is a position line when the diff is longer than the window.
   */
  previewRows(count: number): string[];
  /** Both choices (wrapped when narrow) and, where it fits, the key hint. */
  choices: string[];
}

/** Most rows an approval's diff preview takes; a longer diff scrolls. */
const MAX_PREVIEW_ROWS = 12;

/** The diff rows of a preview: its hunks, colored, or its plain lines when it has none. */
function previewLines(preview: string, cw: number, s: Style): string[] {
  const hunks = renderUnifiedDiff(preview, { width: cw, style: s, maxLines: Infinity });
  if (hunks.length > 0) return hunks;
  return sanitize(preview).replace(/\n$/, "").split("\n").map((l) => s.gray(truncate(l, cw)));
}

function approvalBox(state: ClientState, w: number, s: Style): ApprovalBox | undefined {
  const a = state.approval;
  if (!a) return undefined;
  const cw = Math.max(1, w - 2);
  const riskColor = a.risk === "read" ? s.green : a.risk === "write" ? s.yellow : s.red;

  const head = wrapPlain(`Approve ${sanitize(a.name).replace(/\n/g, " ")}?`, cw).map((r) =>
    s.bold(r.text)
  );
  const risk = "risk: " + riskColor(a.risk);
  if (displayWidth(head.at(-1)!) + 2 + displayWidth(risk) <= cw) {
    head[head.length - 1] += "  " + risk;
  } else head.push(truncate(risk, cw));
  // Which rule asks, when one does: the user's own file, the workspace's, or a built-in.
  if (a.rule) {
    const line = `asked by ${ruleText(a.rule).replace(/^\S+\s+/, "")}`;
    head.push(
      ...wrapPlain(sanitize(line).replace(/\n/g, " "), cw).slice(0, 2).map((r) => s.gray(r.text)),
    );
  }

  // Line by line: a script or a heredoc flattened onto one line would read as another command.
  const summary = sanitize(a.summary).split("\n").flatMap((l) =>
    wrapPlain(l, cw).map((r) => r.text)
  );

  const choice = (label: string, on: boolean) =>
    truncate(on ? s.inverse(` ${label} `) : ` ${label} `, cw);
  const choices = [choice("[y] approve", a.choice === "approve")];
  for (
    const next of [
      choice("[n] deny", a.choice === "deny"),
      choice("[a] always", a.choice === "always"),
    ]
  ) {
    if (displayWidth(choices.at(-1)!) + 1 + displayWidth(next) <= cw) {
      choices[choices.length - 1] += " " + next;
    } else choices.push(next);
  }
  // y, n and Enter go to the composer while it holds text, so say how to answer instead.
  const keys = s.gray(state.composer.text === "" ? "←/→ Enter" : "empty the prompt to answer");
  if (displayWidth(choices.at(-1)!) + 2 + displayWidth(keys) <= cw) {
    choices[choices.length - 1] += "  " + keys;
  }

  const bar = (l: string) => s.yellow("│ ") + l;
  const preview = a.preview === undefined ? [] : previewLines(a.preview, cw, s);
  // Where the call runs; when narrow, the directory is shortened from its start, so whether
  // it is sandboxed stays in view.
  const where = a.sandboxed === undefined ? "" : a.sandboxed ? " · sandboxed" : " · not sandboxed";
  const cwdRoom = Math.max(4, cw - 3 - displayWidth(where));
  return {
    head: head.map((l, i) => (i === 0 ? s.yellow("╭ ") + l : bar(l))),
    summary,
    summaryRows(count: number) {
      const rows = summary.slice(0, count);
      if (count < summary.length && count > 0) {
        rows[count - 1] = truncate(rows[count - 1] + "…", cw);
      }
      return rows.map(bar);
    },
    where: [
      bar(s.gray(truncate(`in ${shortenPath(sanitize(a.cwd), undefined, cwdRoom)}${where}`, cw))),
    ],
    preview,
    previewRows(count: number) {
      if (count <= 0 || preview.length === 0) return [];
      if (preview.length <= count) return preview.map(bar);
      const window = Math.max(1, count - 1);
      const first = Math.min(a.previewScroll, preview.length - window);
      const shown = preview.slice(first, first + window).map(bar);
      const position = `lines ${first + 1}-${
        first + window
      } of ${preview.length} · PgUp/PgDn scroll`;
      return count === 1 ? shown : [...shown, bar(s.gray(truncate(position, cw)))];
    },
    choices: choices.map((l, i) =>
      (i === choices.length - 1 ? s.yellow("╰ ") : s.yellow("│ ")) + l
    ),
  };
}

/** Most session rows the picker shows at once; it scrolls with the highlight. */
const PICKER_ROWS = 8;

/**
 * The session picker's rows for `room` rows at most: its title, the filter, the sessions
 * around the highlighted one (date, turns, title) and a count; empty when it is closed. When
 * rows are short, the highlighted session stays: the filter line goes first (the count then
 * names the filter), then the title, then the count.
 */
export function pickerRows(state: ClientState, w: number, s: Style, room: number): string[] {
  const p = state.picker;
  if (!p || room <= 0) return [];
  const cw = Math.max(1, w - 2);
  const bar = (l: string) => s.cyan("│ ") + l;
  const shown = shownSessions(p);
  const need = shown.length > 0 ? 1 : 0;
  const showFilter = room >= 3 + need;
  const showHead = room >= 2 + need;
  const showFoot = room >= 1 + need;
  const esc = p.startup ? "Esc new session" : "Esc cancel";
  const head = s.cyan("╭ ") +
    truncate(
      `${s.bold("Resume a session")} ${s.gray(`· type to filter · ↑/↓ Enter · ${esc}`)}`,
      cw,
    );
  const filter = bar(
    truncate(p.filter === "" ? s.gray("filter: (type)") : `filter: ${sanitize(p.filter)}`, cw),
  );
  const total = p.sessions?.length ?? 0;
  const filterNote = !showFilter && p.filter !== "" ? `filter: ${sanitize(p.filter)} · ` : "";
  const foot = (showHead ? s.cyan("╰ ") : s.cyan("│ ")) + s.gray(truncate(
    p.sessions === undefined
      ? "loading the recorded sessions…"
      : `${filterNote}${shown.length} of ${total} session${total === 1 ? "" : "s"}${
        p.truncated ? " (the newest)" : ""
      }`,
    cw,
  ));
  const fixed = Number(showHead) + Number(showFilter) + Number(showFoot);
  const n = Math.max(0, Math.min(PICKER_ROWS, shown.length, room - fixed));
  const first = Math.min(Math.max(0, p.index - n + 1), Math.max(0, shown.length - n));
  const rows = shown.slice(first, first + n).map((x, i) => {
    const on = first + i === p.index;
    const turns = `${x.turns} turn${x.turns === 1 ? " " : "s"}`.padStart(9);
    const line = truncate(
      `${on ? "›" : " "} ${sessionDate(x, p.utcOffsetMinutes)} ${turns}  ${
        sanitize(x.title || "(no prompt yet)").replace(/\n/g, " ")
      }`,
      cw,
    );
    return bar(on ? s.inverse(line) : line);
  });
  return [
    ...(showHead ? [head] : []),
    ...(showFilter ? [filter] : []),
    ...rows,
    ...(showFoot ? [foot] : []),
  ];
}

/**
 * The live region for a view: at most `height - 1` lines, each at most `width` columns.
 *
 * When the lines do not all fit, space goes first to the approval prompt (its tool, risk,
 * first summary row and both choices), then the status line, the hint, the rest of the
 * approval prompt, one composer row and its rules, queued prompts, the plan's checklist (at
 * most 10 rows), running tools, more composer rows and last the streamed text: what is needed
 * to answer comes first, what is already on its way to scrollback last.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRenderCache, renderLive } from "./render.ts";
 * import { createState } from "./state/mod.ts";
 * import { makeStyle } from "./text.ts";
 * const s = createState({ model: "m", cwd: "/w", historyLimits: { maxItems: 1, maxBytes: 9 } });
 * const lines = renderLive(s, { width: 40, height: 10, style: makeStyle(false) }, createRenderCache());
 * assert(lines.at(-1)!.startsWith("m · /w"));
 * ```
 */
export function renderLive(state: ClientState, view: View, cache: RenderCache): string[] {
  const parts = liveParts(state, view, cache);
  const budget = allocateRows(state, view, parts);
  return [
    ...streamPreview(state, cache, parts, budget.stream),
    ...middleRows(parts, budget),
    ...bottomRows(state, view, parts, budget),
  ];
}

/** What the live region may show, each part rendered to rows, before rows are handed out. */
interface LiveParts {
  /** The columns every row fits in (at least 10). */
  w: number;
  style: Style;
  box: ApprovalBox | undefined;
  /** The box's rows that are never left out while any fit: tool, risk, first summary row, choices. */
  boxCore: string[];
  tools: string[];
  queued: string[];
  hint: string[];
  composer: { rows: string[]; cursorRow: number };
  /** The rows the running turn's plan would take in full (at most {@link LIVE_PLAN_ROWS}). */
  planWant: number;
  /** The plan's checklist in `rows` rows. */
  plan: (rows: number) => string[];
}

/** Most rows the running turn's plan takes above the composer; a longer plan scrolls to its step. */
const LIVE_PLAN_ROWS = 10;

function liveParts(state: ClientState, view: View, cache: RenderCache): LiveParts {
  const s = view.style;
  const w = Math.max(10, view.width);
  const box = approvalBox(state, w, s);
  // The checklist shows while the turn runs; the transcript keeps each plan.
  const plan = state.turn ? state.plan : undefined;
  return {
    w,
    style: s,
    box,
    boxCore: box ? [...box.head, ...box.summaryRows(1), ...box.choices] : [],
    tools: liveTools(state, w, s),
    // The composer's image chips sit right above it, with the queued prompts.
    queued: [
      ...queuedLines(state, w, s),
      ...chipLabels(state.images).map((c) => s.cyan(truncate(sanitize(c), w))),
    ],
    hint: [
      ...(state.hint ? [s.yellow(truncate(state.hint, w))] : []),
      // A plan-mode turn ended: one key goes on (modes.ts).
      ...(state.planOffer && !state.turn ? [s.yellow(truncate(PLAN_OFFER, w))] : []),
    ],
    composer: composerRows(cache, state, composerWidth(view.width), s),
    planWant: plan ? Math.min(LIVE_PLAN_ROWS, plan.length + 1) : 0,
    plan: (rows) => plan && rows > 0 ? planLines(plan, w, s, rows).slice(0, rows) : [],
  };
}

/** The last queued prompts, one row each, and a count of the rest. */
function queuedLines(state: ClientState, w: number, s: Style): string[] {
  const queued = state.queued.slice(-3).map((q) =>
    s.gray(truncate(`↳ ${q.kind}: ${sanitize(q.text).replace(/\n/g, " ⏎ ")}`, w))
  );
  if (state.queued.length > 3) {
    queued.push(s.gray(truncate(`↳ … ${state.queued.length - 3} more waiting`, w)));
  }
  return queued;
}

/** How many rows each part of the live region gets (the picker's rows themselves). */
interface RowBudget {
  boxCore: number;
  status: number;
  picker: string[];
  hint: number;
  /** Summary rows of the approval box past its first. */
  summary: number;
  where: number;
  /** Rows of the approval's diff preview. */
  preview: number;
  composer: number;
  ruleBelow: number;
  ruleAbove: number;
  queued: number;
  /** Rows of the running turn's plan. */
  plan: number;
  tools: number;
  stream: number;
}

/** Hands out the rows in order of importance (see {@link renderLive}). */
function allocateRows(state: ClientState, view: View, parts: LiveParts): RowBudget {
  const { box, boxCore, hint, queued, tools, composer, w, style } = parts;
  let room = Math.max(3, view.height - 1);
  // Gives what is asked or what is left.
  const take = (want: number) => {
    const n = Math.max(0, Math.min(want, room));
    room -= n;
    return n;
  };
  const boxCoreRows = take(boxCore.length);
  const status = take(1);
  // The composer's rules give way before the picker's highlighted row (typing goes to the
  // picker's filter while it is open): title, filter, one session and its count need 4.
  const picker = [
    ...pickerRows(state, w, style, Math.max(Math.min(room, 4), room - 3)),
    ...rewindRows(state, w, style, Math.max(Math.min(room, 4), room - 3)),
  ];
  take(picker.length);
  const hintRows = take(hint.length);
  const summary = box ? take(Math.min(MAX_SUMMARY_ROWS, box.summary.length) - 1) : 0;
  const where = box ? take(box.where.length) : 0;
  // An edit's diff before more composer rows: it is what the user approves.
  const preview = box ? take(Math.min(MAX_PREVIEW_ROWS, box.preview.length)) : 0;
  let composerRowsShown = take(1);
  const ruleBelow = take(1);
  const ruleAbove = take(1);
  const queuedRows = take(queued.length);
  const planRows = take(parts.planWant);
  const toolRows = take(tools.length);
  // The rest of a long summary (a script to approve) before more composer rows and the stream.
  const summaryMore = box && summary === Math.min(MAX_SUMMARY_ROWS, box.summary.length) - 1
    ? take(Math.min(MAX_SUMMARY_ROWS_IN_ROOM, box.summary.length) - 1 - summary)
    : 0;
  composerRowsShown += composerRowsShown > 0
    ? take(Math.min(MAX_COMPOSER_ROWS, composer.rows.length) - 1)
    : 0;
  // The block being streamed is previewed in its last rows, at most a third of the screen:
  // complete blocks are already in scrollback, and a small region redraws cheaply.
  const stream = take(Math.max(3, Math.floor(view.height / 3)));
  return {
    boxCore: boxCoreRows,
    status,
    picker,
    hint: hintRows,
    summary: summary + summaryMore,
    where,
    preview,
    composer: composerRowsShown,
    ruleBelow,
    ruleAbove,
    queued: queuedRows,
    plan: planRows,
    tools: toolRows,
    stream,
  };
}

/** The running tools, the approval box, the picker, queued prompts and the hint. */
function middleRows(parts: LiveParts, budget: RowBudget): string[] {
  const { box, boxCore, tools, queued, hint } = parts;
  const middle = [...tools.slice(tools.length - budget.tools), ...parts.plan(budget.plan)];
  if (box) {
    if (budget.boxCore < boxCore.length) {
      middle.push(...boxCore.slice(boxCore.length - budget.boxCore));
    } else {
      middle.push(
        ...box.head,
        ...box.summaryRows(1 + budget.summary),
        ...box.previewRows(budget.preview),
        ...box.where.slice(0, budget.where),
        ...box.choices,
      );
    }
  }
  middle.push(...budget.picker, ...queued.slice(0, budget.queued), ...hint.slice(0, budget.hint));
  return middle;
}

/** The composer between its rules, scrolled to keep the cursor's row, and the status line. */
function bottomRows(
  state: ClientState,
  view: View,
  parts: LiveParts,
  budget: RowBudget,
): string[] {
  const { composer: comp, w, style: s } = parts;
  const rule = s.gray("─".repeat(w));
  const n = budget.composer;
  const first = Math.min(
    Math.max(0, comp.cursorRow - n + 1),
    Math.max(0, comp.rows.length - n),
  );
  const composer = comp.rows.slice(first, first + n).map((r, i) =>
    (first + i === 0 ? s.cyan("› ") : "  ") + r
  );
  return [
    ...(budget.ruleAbove ? [rule] : []),
    ...composer,
    ...(budget.ruleBelow ? [rule] : []),
    ...(budget.status ? [statusLine(state, { ...view, width: w })] : []),
  ];
}

/**
 * The last `rows` rows of the text being streamed; or, while the turn has nothing to show
 * yet, one line: the reasoning's last line, dimmed, or "thinking…" / "cancelling…".
 */
function streamPreview(
  state: ClientState,
  cache: RenderCache,
  parts: LiveParts,
  rows: number,
): string[] {
  const { w, style: s } = parts;
  if (rows <= 0) return [];
  if (state.streamText !== "") {
    const tail = streamTail(cache, state.streamId, state.streamText, w - 2, rows);
    const totalStable = cache.stream?.stable.length ?? 0;
    const firstIsStart = tail.length === totalStable + 1 && state.streamCommitted === "";
    return tail.map((r, i) => (i === 0 && firstIsStart ? s.magenta("● ") : "  ") + r);
  }
  if (!state.turn || state.tools.length > 0 || state.approval) return [];
  const thought = reasoningLine(state);
  return [
    state.turn.phase !== "cancelling" && thought !== ""
      ? s.dim(s.gray(truncate(`✻ ${sanitize(thought)}`, w)))
      : s.gray(truncate(state.turn.phase === "cancelling" ? "  cancelling…" : "  thinking…", w)),
  ];
}
