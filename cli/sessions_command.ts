/**
 * `scv sessions`: the recorded sessions, newest first, read from the sessions index (no server
 * is started). Text: one line per session; `--json`: one `SessionSummary` object per line.
 *
 * @module
 */
import type { SessionsOptions } from "./command_line.ts";
import { loadConfigOrReport, readEnv } from "../server/config.ts";
import { errorText } from "../server/error_text.ts";
import { openSessionStore } from "../server/core/open_store.ts";
import type { IndexEntry } from "../server/sessions/session_index.ts";
import { checkpointsDir } from "../server/checkpoints/open.ts";
import { checkpointsUsage } from "../server/checkpoints/retention.ts";
import { followSessions } from "../server/checkpoints/follow_sessions.ts";

/** Where `scv sessions` writes; injectable for embedding. */
export interface SessionsIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const encoder = new TextEncoder();
const defaultIO: SessionsIO = {
  stdout: (t) => void Deno.stdout.writeSync(encoder.encode(t)),
  stderr: (t) => void Deno.stderr.writeSync(encoder.encode(t)),
};

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A timestamp as `YYYY-MM-DD HH:MM` UTC, or as recorded when it does not parse. */
function shortTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 16).replace("T", " ") : iso;
}

/**
 * One session as a text line: id, last update (UTC), turns, directory, title.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionLine } from "./sessions_command.ts";
 * const line = sessionLine({ session_id: "id", cwd: "/w", model: "m", created_at: "",
 *   updated_at: "2026-12-01T09:40:51.000Z", turns: 1, title: "Fix it" });
 * assert.equal(line, "id  2026-12-01 09:40  1 turn   /w  Fix it");
 * ```
 */
export function sessionLine(e: IndexEntry): string {
  const turns = `${e.turns} ${e.turns === 1 ? "turn " : "turns"}`;
  // Control characters in a title or a directory name would move the terminal's cursor: a
  // title shows them as spaces, a path as `\uXXXX` escapes (so it still names its directory).
  const title = e.title.replace(CONTROL, " ");
  const cwd = e.cwd.replace(
    CONTROL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `${e.session_id}  ${shortTime(e.updated_at)}  ${turns}  ${cwd}  ${title || "(no prompt)"}`;
}

/**
 * The checkpoints' disk use as a line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkpointsLine } from "./sessions_command.ts";
 * assert.equal(
 *   checkpointsLine({ workspaces: 2, bytes: 3 * 1024 * 1024 }, "/s/scv/checkpoints"),
 *   "checkpoints: 3.0 MiB for 2 workspaces in /s/scv/checkpoints",
 * );
 * ```
 */
export function checkpointsLine(used: { workspaces: number; bytes: number }, dir: string): string {
  const size = used.bytes >= 1024 * 1024
    ? `${(used.bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${(used.bytes / 1024).toFixed(1)} KiB`;
  const ws = `${used.workspaces} workspace${used.workspaces === 1 ? "" : "s"}`;
  return `checkpoints: ${size} for ${ws} in ${dir.replace(CONTROL, " ")}`;
}

/** Lists sessions; resolves with the exit status (0 listed, 1 cannot list, 2 bad config). */
export async function runSessions(
  options: SessionsOptions,
  io: SessionsIO = defaultIO,
): Promise<number> {
  const config = loadConfigOrReport(options.flags, (line) => io.stderr(line + "\n"));
  if (!config) return 2;
  const log = (line: string) => io.stderr(line + "\n");
  const store = openSessionStore(config, readEnv, log, followSessions(readEnv, log));
  if (!store) {
    io.stderr(
      config.persist_sessions
        ? "scv sessions: no state directory (set XDG_STATE_HOME or HOME)\n"
        : "scv sessions: sessions are not recorded (persist_sessions is false)\n",
    );
    return 1;
  }
  let cwd = options.cwd;
  if (cwd !== undefined) {
    const given = cwd;
    cwd = await Deno.realPath(given).catch(() => given);
  }
  // A directory that cannot be used was already said, once, by the store's log.
  if (!await store.ready.then(() => true, () => false)) return 1;
  let list;
  try {
    list = await store.list({ cwd, limit: options.limit });
  } catch (e) {
    io.stderr(`scv sessions: cannot list ${store.dir}: ${errorText(e)}\n`);
    return 1;
  }
  if (options.json) {
    for (const s of list.sessions) io.stdout(JSON.stringify(s) + "\n");
    return 0;
  }
  if (list.sessions.length === 0) {
    io.stdout(cwd === undefined ? "No recorded sessions.\n" : `No recorded sessions for ${cwd}.\n`);
    return 0;
  }
  for (const s of list.sessions) io.stdout(sessionLine(s) + "\n");
  const cpDir = checkpointsDir(readEnv);
  if (cpDir !== undefined) {
    const used = await checkpointsUsage(cpDir);
    if (used.workspaces > 0) io.stdout(checkpointsLine(used, cpDir) + "\n");
  }
  if (list.matched > list.sessions.length) {
    io.stderr(`scv sessions: ${list.matched - list.sessions.length} older not shown (--limit)\n`);
  }
  return 0;
}
