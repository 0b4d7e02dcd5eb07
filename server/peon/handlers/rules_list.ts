/**
 * `rules.list`: the approval rules in force in a session (a client's `/rules`), in the order they
 * are consulted: the user's file, the workspace's, the built-in rules, then the session's
 * remembered ones. The last rules are left out (`omitted`) when they would not fit the frame.
 *
 * @module
 */
import { FrameTooLargeError } from "../../../protocol/ndjson.ts";
import type { ClientMessageOf } from "../../../protocol/schema.ts";
import { ruleView } from "../../core/rules/view.ts";
import type { ConnectionContext } from "../context.ts";

/** Answers `rules.list`. */
export async function rulesList(
  msg: ClientMessageOf<"rules.list">,
  cx: ConnectionContext,
): Promise<void> {
  const session = await cx.sessionOf(msg);
  if (!session) return;
  const all = session.rulesInForce().map(ruleView);
  // Halve what is sent until it fits: a few frames at most, even for thousands of rules.
  let count = all.length;
  for (;;) {
    try {
      await cx.send<"rules.list">({
        type: "rules.list",
        request_id: msg.request_id,
        session_id: session.id,
        rules: all.slice(0, count),
        ...(count < all.length ? { omitted: all.length - count } : {}),
      });
      return;
    } catch (e) {
      if (!(e instanceof FrameTooLargeError) || count === 0) throw e;
      count = Math.floor(count / 2);
    }
  }
}
