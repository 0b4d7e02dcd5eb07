/**
 * The session file format: one JSON record per line, a versioned header first. Pure: encoding a
 * record and folding a file's lines back into the session state they describe, tolerating a
 * torn or foreign line (counted, skipped) so a crash costs at most the record being written.
 *
 * ```text
 * {"t":"header","v":1,"session_id":"…","cwd":"/w","model":"m","approval_policy":"on-risk","created_at":"…"}
 * {"t":"msg","m":{"role":"user","content":"Fix the test."}}
 * {"t":"msg","m":{"role":"tool","tool_call_id":"c1","content":"ok"},"tool":{"name":"bash","success":true,"summary":"Run shell command: ls"}}
 * {"t":"mark","seq":7,"usage":{"input_tokens":120,"output_tokens":30,"cost_usd":0.0012},"compacted":0,"end":"completed","at":"…"}
 * ```
 *
 * `msg` appends to the history (with the seq of the last event sent before it); `rewrite` drops the oldest `drop` messages and puts `prepend`
 * before the rest (compaction, trimming); `snapshot` replaces the history; `clear` empties it
 * (`session.clear`); `config` sets model and approval policy; `mark` carries seq, usage totals
 * and the compaction count, and with `end` closes a turn.
 *
 * @module
 */
import { MAX_ATTACHMENTS } from "../../protocol/constants.ts";
import type { TurnEnd as TurnEndEvent } from "../../protocol/turn_events.ts";
import type { ChatMessage } from "../provider/types.ts";
import { COMPACTION_MARKER } from "../context/record.ts";

/** The format version this build writes and reads. */
export const FORMAT_VERSION = 1;

/** What a tool message's history item shows besides its content. */
export interface ToolMeta {
  name: string;
  success: boolean;
  /** The call as its approval summary reads; omitted when unknown. */
  summary?: string;
}

/** Input and output tokens summed over a session's turns, and what they cost. */
export interface RecordedUsage {
  input_tokens: number;
  output_tokens: number;
  /** scv 0.3: USD by `pricing`; omitted while no priced provider call was made. */
  cost_usd?: number;
}

/**
 * The usage totals as a mark records them: only the known fields, so that what a session
 * object carries besides them never reaches the file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedUsage } from "./records.ts";
 * assert.deepEqual(recordedUsage({ input_tokens: 1, output_tokens: 2 }), { input_tokens: 1, output_tokens: 2 });
 * ```
 */
export function recordedUsage(u: RecordedUsage): RecordedUsage {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    ...(u.cost_usd !== undefined ? { cost_usd: u.cost_usd } : {}),
  };
}

/** How a turn ended. */
export type TurnEnd = "completed" | "failed" | "cancelled";

/** How a turn's terminal event reads in the record. */
export function turnEndOf(end: TurnEndEvent): TurnEnd {
  return end.type === "turn.completed"
    ? "completed"
    : end.type === "turn.cancelled"
    ? "cancelled"
    : "failed";
}

/** The first line of every session file. */
export interface HeaderRecord {
  t: "header";
  v: number;
  session_id: string;
  cwd: string;
  model: string;
  approval_policy: string;
  created_at: string;
}

/**
 * A steer or queued prompt that waits (scv 0.3): recorded by a `wait` record when it is
 * accepted, until a `settle` record names its request id.
 */
export interface WaitingRecord {
  request_id: string;
  prompt: string;
  kind: "steer" | "queue";
  /** The names of its images (their bytes are not recorded); omitted: none. */
  images?: string[];
}

/**
 * The most waiting entries a replay keeps (the oldest go first): a live session has at most 8
 * steers and 16 queued prompts, so only a foreign file could hold more.
 */
export const MAX_REPLAYED_WAITING = 64;

/** Any record of a session file. */
export type SessionRecord =
  | ({ t: "wait" } & WaitingRecord)
  | { t: "settle"; ids: string[] }
  | HeaderRecord
  | { t: "msg"; m: ChatMessage; tool?: ToolMeta; seq?: number }
  | { t: "rewrite"; drop: number; prepend: ChatMessage[] }
  | {
    t: "snapshot";
    history: Array<{ m: ChatMessage; tool?: ToolMeta }>;
    /** When a rewritten file starts with it: the title and turns the dropped records gave. */
    title?: string;
    turns?: number;
  }
  | { t: "clear" }
  | { t: "config"; model: string; approval_policy: string }
  | {
    t: "mark";
    seq: number;
    usage: RecordedUsage;
    compacted: number;
    end?: TurnEnd;
    at: string;
  };

/** A session as its file describes it. */
export interface ReplayedSession {
  header: HeaderRecord;
  history: ChatMessage[];
  /** Tool-message metadata by `tool_call_id`, for the messages still in `history`. */
  toolMeta: Map<string, ToolMeta>;
  seq: number;
  usage: RecordedUsage;
  compacted: number;
  /** The model in force: the last `config` record's, else the header's. */
  model: string;
  approvalPolicy: string;
  /** Whether a `config` record set them (`session.configure`), rather than the header. */
  configured: boolean;
  /** Turns that ended. */
  turns: number;
  /** The first prompt, as `session.list` shows it. */
  title: string;
  /** The last mark's time, else the creation time. */
  updatedAt: string;
  /** What was waiting (steers, queued prompts) when the record ends, oldest first (scv 0.3). */
  waiting: WaitingRecord[];
  /** Lines that were not records (torn by a crash, or foreign); they were skipped. */
  badLines: number;
  /** Whether the last line had no newline: a write cut short. */
  tornTail: boolean;
}

/** `session.list` titles keep at most this many characters (code points). */
export const TITLE_CHARS = 80;

/**
 * A prompt as a title: whitespace collapsed, at most {@link TITLE_CHARS} code points.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { titleOf } from "./records.ts";
 * assert.equal(titleOf("  Fix\n the   test "), "Fix the test");
 * assert.equal([...titleOf("é".repeat(100))].length, 80);
 * ```
 */
export function titleOf(prompt: string): string {
  const text = prompt.slice(0, TITLE_CHARS * 8).replace(/\s+/g, " ").trim();
  const chars = Array.from(text);
  return chars.length <= TITLE_CHARS ? text : chars.slice(0, TITLE_CHARS).join("");
}

/** One record as a line of the file, newline included. */
export function encodeRecord(record: SessionRecord): string {
  return JSON.stringify(record) + "\n";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isMessage(v: unknown): v is ChatMessage {
  if (!isObject(v)) return false;
  switch (v.role) {
    case "user":
    case "system":
      return typeof v.content === "string";
    case "assistant":
      return (typeof v.content === "string" || v.content === null) &&
        (v.tool_calls === undefined || Array.isArray(v.tool_calls));
    case "tool":
      return typeof v.tool_call_id === "string" && typeof v.content === "string";
    default:
      return false;
  }
}

function isToolMeta(v: unknown): v is ToolMeta {
  return isObject(v) && typeof v.name === "string" && typeof v.success === "boolean" &&
    (v.summary === undefined || typeof v.summary === "string");
}

function isUsage(v: unknown): v is RecordedUsage {
  return isObject(v) && Number.isSafeInteger(v.input_tokens) &&
    Number.isSafeInteger(v.output_tokens) &&
    (v.cost_usd === undefined ||
      (typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) && v.cost_usd >= 0));
}

/** The header a line holds, or undefined when it is not a header this build can read. */
export function parseHeader(line: string): HeaderRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (
    !isObject(v) || v.t !== "header" || v.v !== FORMAT_VERSION ||
    typeof v.session_id !== "string" || typeof v.cwd !== "string" ||
    typeof v.model !== "string" || typeof v.approval_policy !== "string" ||
    typeof v.created_at !== "string"
  ) return undefined;
  return v as unknown as HeaderRecord;
}

/** Why a file cannot be replayed at all (no readable header). */
export class SessionFormatError extends SyntaxError {
  /** Builds the error; the message is user-facing. */
  constructor(message: string) {
    super(message);
    this.name = "SessionFormatError";
  }
}

/**
 * Folds a session file's text into the session it records. Lines that are not valid records
 * are counted in `badLines` and skipped; a last line without its newline is `tornTail`.
 * Throws {@link SessionFormatError} when the first line is not a readable header.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeRecord, replay } from "./records.ts";
 * const text = encodeRecord({ t: "header", v: 1, session_id: "s", cwd: "/w", model: "m",
 *   approval_policy: "on-risk", created_at: "2026-01-01T00:00:00.000Z" }) +
 *   encodeRecord({ t: "msg", m: { role: "user", content: "hi" } }) + '{"t":"msg","m":{"ro';
 * const s = replay(text);
 * assert.equal(s.history.length, 1);
 * assert.equal(s.tornTail, true);
 * assert.equal(s.title, "hi");
 * ```
 */
export function replay(text: string): ReplayedSession {
  const lines = text.split("\n");
  // The piece after the last newline: empty for a whole file, a torn record otherwise.
  const tail = lines.pop() ?? "";
  const tornTail = tail !== "";
  const header = parseHeader(lines[0] ?? "");
  if (!header) {
    throw new SessionFormatError(
      `not a session file of format version ${FORMAT_VERSION}: its first line is not a header`,
    );
  }
  const s: ReplayedSession = {
    header,
    history: [],
    toolMeta: new Map(),
    seq: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    compacted: 0,
    model: header.model,
    approvalPolicy: header.approval_policy,
    configured: false,
    turns: 0,
    title: "",
    updatedAt: header.created_at,
    waiting: [],
    badLines: tornTail ? 1 : 0,
    tornTail,
  };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    if (!apply(s, line)) s.badLines++;
  }
  return s;
}

/** Applies one line; false when it is not a valid record. */
function apply(s: ReplayedSession, line: string): boolean {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return false;
  }
  if (!isObject(r)) return false;
  switch (r.t) {
    case "msg": {
      if (
        !isMessage(r.m) || (r.tool !== undefined && !isToolMeta(r.tool)) ||
        (r.seq !== undefined && !Number.isSafeInteger(r.seq))
      ) return false;
      s.history.push(r.m);
      // A step of a turn that a crash cut short still moves seq on.
      if (r.seq !== undefined) s.seq = Math.max(s.seq, r.seq as number);
      if (r.m.role === "tool" && r.tool !== undefined) s.toolMeta.set(r.m.tool_call_id, r.tool);
      if (s.title === "" && r.m.role === "user" && !r.m.content.startsWith(COMPACTION_MARKER)) {
        s.title = titleOf(r.m.content);
      }
      return true;
    }
    case "rewrite": {
      const drop = r.drop;
      if (
        !Number.isSafeInteger(drop) || (drop as number) < 0 || !Array.isArray(r.prepend) ||
        !r.prepend.every(isMessage)
      ) return false;
      s.history = [...r.prepend as ChatMessage[], ...s.history.slice(drop as number)];
      pruneMeta(s);
      return true;
    }
    case "snapshot": {
      if (!Array.isArray(r.history)) return false;
      const entries = r.history as unknown[];
      if (
        !entries.every((e) =>
          isObject(e) && isMessage(e.m) && (e.tool === undefined || isToolMeta(e.tool))
        )
      ) return false;
      if (
        (r.title !== undefined && typeof r.title !== "string") ||
        (r.turns !== undefined && !Number.isSafeInteger(r.turns))
      ) return false;
      if (typeof r.title === "string") s.title = r.title;
      if (typeof r.turns === "number") s.turns = r.turns;
      s.history = [];
      s.toolMeta = new Map();
      for (const e of entries as Array<{ m: ChatMessage; tool?: ToolMeta }>) {
        s.history.push(e.m);
        if (e.m.role === "tool" && e.tool) s.toolMeta.set(e.m.tool_call_id, e.tool);
      }
      return true;
    }
    case "wait": {
      if (
        typeof r.request_id !== "string" || typeof r.prompt !== "string" ||
        (r.kind !== "steer" && r.kind !== "queue")
      ) return false;
      const images = r.images;
      if (
        images !== undefined &&
        !(Array.isArray(images) && images.length <= MAX_ATTACHMENTS &&
          images.every((n) => typeof n === "string"))
      ) return false;
      const entry: WaitingRecord = {
        request_id: r.request_id,
        prompt: r.prompt,
        kind: r.kind,
        ...(images?.length ? { images: images.map((n: string) => n.slice(0, 200)) } : {}),
      };
      s.waiting = [...s.waiting.filter((w) => w.request_id !== entry.request_id), entry];
      if (s.waiting.length > MAX_REPLAYED_WAITING) s.waiting.shift();
      return true;
    }
    case "settle": {
      if (!Array.isArray(r.ids) || !r.ids.every((i) => typeof i === "string")) return false;
      const ids = new Set(r.ids as string[]);
      s.waiting = s.waiting.filter((w) => !ids.has(w.request_id));
      return true;
    }
    case "clear":
      s.history = [];
      s.toolMeta = new Map();
      s.usage = { input_tokens: 0, output_tokens: 0 };
      s.compacted = 0;
      return true;
    case "config":
      if (typeof r.model !== "string" || typeof r.approval_policy !== "string") return false;
      s.model = r.model;
      s.approvalPolicy = r.approval_policy;
      s.configured = true;
      return true;
    case "mark": {
      if (
        !Number.isSafeInteger(r.seq) || !isUsage(r.usage) || !Number.isSafeInteger(r.compacted) ||
        typeof r.at !== "string" ||
        (r.end !== undefined && r.end !== "completed" && r.end !== "failed" &&
          r.end !== "cancelled")
      ) return false;
      // seq never goes back, even should a foreign line claim so.
      s.seq = Math.max(s.seq, r.seq as number);
      s.usage = recordedUsage(r.usage);
      s.compacted = r.compacted as number;
      s.updatedAt = r.at;
      if (r.end !== undefined) s.turns++;
      return true;
    }
    default:
      return false;
  }
}

/** Forgets metadata of tool messages no longer in the history. */
function pruneMeta(s: ReplayedSession): void {
  if (s.toolMeta.size === 0) return;
  const ids = new Set(s.history.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []));
  for (const id of s.toolMeta.keys()) if (!ids.has(id)) s.toolMeta.delete(id);
}

/** What a resumed history gets for a tool call the crash left without a result. */
export const INTERRUPTED_RESULT =
  "The tool call was interrupted: scv stopped before it finished, so its outcome is unknown.";

/**
 * Gives every tool call of the last assistant message a result, so the next provider request
 * is valid after a crash cut a turn short. Returns the results added.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerInterruptedCalls } from "./records.ts";
 * const history = [{ role: "assistant" as const, content: null, tool_calls: [
 *   { id: "c1", type: "function" as const, function: { name: "bash", arguments: "{}" } }] }];
 * assert.equal(answerInterruptedCalls(history).length, 1);
 * assert.equal(history.length, 2);
 * ```
 */
export function answerInterruptedCalls(history: ChatMessage[]): ChatMessage[] {
  const added: ChatMessage[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== "assistant") continue;
    if (!m.tool_calls) break;
    const answered = new Set(
      history.slice(i + 1).flatMap((t) => t.role === "tool" ? [t.tool_call_id] : []),
    );
    for (const c of m.tool_calls) {
      if (!answered.has(c.id)) {
        const result: ChatMessage = {
          role: "tool",
          tool_call_id: c.id,
          content: INTERRUPTED_RESULT,
        };
        history.push(result);
        added.push(result);
      }
    }
    break;
  }
  return added;
}
