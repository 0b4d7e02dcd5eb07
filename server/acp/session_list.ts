/**
 * `session/list` over the recorded sessions: one page of the newest first, as ACP's
 * `SessionInfo`, with an opaque cursor for the next page. Pure.
 *
 * @module
 */
import type { ListSessionsResponse } from "@agentclientprotocol/sdk";
import type { SessionSummary } from "../../protocol/schema.ts";

/** Sessions on one page. */
export const LIST_PAGE_SIZE = 50;
/** How deep pages go: the store keeps at most `max_sessions` anyway. */
export const MAX_LIST_OFFSET = 10_000;

/**
 * Where a cursor starts, or undefined for a cursor scv did not hand out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cursorOffset } from "./session_list.ts";
 * assert.equal(cursorOffset(undefined), 0);
 * assert.equal(cursorOffset("50"), 50);
 * assert.equal(cursorOffset("-1"), undefined);
 * ```
 */
export function cursorOffset(cursor: string | null | undefined): number | undefined {
  if (cursor === undefined || cursor === null) return 0;
  if (!/^\d{1,6}$/.test(cursor)) return undefined;
  const n = Number(cursor);
  return n <= MAX_LIST_OFFSET && n % LIST_PAGE_SIZE === 0 ? n : undefined;
}

/**
 * The page starting at `offset` of `summaries` (newest first, at least `offset + pageSize + 1`
 * of them when there are that many), and how many matched in all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listPage } from "./session_list.ts";
 * const s = { session_id: "a", cwd: "/ws", model: "m", created_at: "t0", updated_at: "t1",
 *   turns: 1, title: "Fix it" };
 * assert.deepEqual(listPage([s], 1, 0), {
 *   sessions: [{ sessionId: "a", cwd: "/ws", title: "Fix it", updatedAt: "t1" }],
 * });
 * ```
 */
export function listPage(
  summaries: readonly SessionSummary[],
  matched: number,
  offset: number,
  pageSize = LIST_PAGE_SIZE,
): ListSessionsResponse {
  const page = summaries.slice(offset, offset + pageSize).map((s) => ({
    sessionId: s.session_id,
    cwd: s.cwd,
    // A session recorded before its first prompt has no title yet.
    ...(s.title !== "" ? { title: s.title } : {}),
    updatedAt: s.updated_at,
  }));
  const next = offset + pageSize;
  return next < matched && next <= MAX_LIST_OFFSET
    ? { sessions: page, nextCursor: String(next) }
    : { sessions: page };
}
