/** The idle-session guard the session requests share, with a stand-in connection. */
import { assertEquals } from "../../support/assert.ts";
import type { ConnectionContext } from "../../../server/peon/context.ts";
import { idleSessionOf } from "../../../server/peon/idle_session.ts";
import type { Session } from "../../../server/core/session.ts";

type Reply = { requestId: string | undefined; code: string; message: string };

function fakeContext(session: Session | undefined): { cx: ConnectionContext; replies: Reply[] } {
  const replies: Reply[] = [];
  const cx = {
    sessionOf: () => Promise.resolve(session),
    error: (requestId: string | undefined, code: string, message: string) => {
      replies.push({ requestId, code, message });
      return Promise.resolve();
    },
  } as unknown as ConnectionContext;
  return { cx, replies };
}

const msg = { request_id: "r1", session_id: "s1" };

Deno.test("idleSessionOf gives back an idle session and answers nothing", async () => {
  const session = { id: "s1", turn: undefined } as unknown as Session;
  const { cx, replies } = fakeContext(session);
  assertEquals(await idleSessionOf(msg, cx, "clear"), session);
  assertEquals(replies, []);
});

Deno.test("idleSessionOf answers turn_active naming the action and the running turn", async () => {
  const session = { id: "s1", turn: { id: "t9" } } as unknown as Session;
  const { cx, replies } = fakeContext(session);
  assertEquals(await idleSessionOf(msg, cx, "compact"), undefined);
  assertEquals(replies, [{
    requestId: "r1",
    code: "turn_active",
    message: `cannot compact while turn "t9" is running`,
  }]);
});

Deno.test("idleSessionOf gives undefined and adds no reply when the session is unknown", async () => {
  const { cx, replies } = fakeContext(undefined);
  assertEquals(await idleSessionOf(msg, cx, "configure"), undefined);
  assertEquals(replies, []);
});
