/**
 * Approval over Peon in process (server/peon/approvals.ts): the request goes out as
 * `approval.requested` with a fresh id, and `approval.resolve` (the session) answers it.
 */
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import type { TurnEvent } from "../../../protocol/turn_events.ts";
import { peonApprovals } from "../../../server/peon/approvals.ts";
import { Session } from "../../../server/core/session.ts";
import { Turn } from "../../../server/core/turn.ts";

function setup() {
  const session = new Session("/workspace");
  const events: TurnEvent[] = [];
  const turn = new Turn({
    session,
    requestId: "r1",
    prompt: "p",
    maxFrameBytes: 65536,
    sink: (e) => {
      events.push(e);
      return Promise.resolve();
    },
  });
  const approvals = peonApprovals(session, turn);
  const request = {
    call_id: "c1",
    name: "bash",
    arguments: { command: "ls" },
    risk: "process" as const,
    summary: "Run shell command: ls",
    cwd: "/workspace",
  };
  return { session, events, approvals, request };
}

Deno.test("a Peon approval is sent as approval.requested and answered by its id", async () => {
  const { session, events, approvals, request } = setup();
  const decided = approvals.request(request, new AbortController().signal);
  // The event is queued before the request waits, so the client can answer it.
  while (events.length === 0) await Promise.resolve();
  const sent = events[0]!;
  assert(sent.type === "approval.requested");
  assertEquals(
    [sent.call_id, sent.name, sent.risk, sent.cwd, sent.summary],
    ["c1", "bash", "process", "/workspace", "Run shell command: ls"],
  );
  assert(/^[0-9a-f-]{36}$/.test(sent.approval_id), sent.approval_id);
  assert(session.resolveApproval(sent.approval_id, false));
  assertEquals(await decided, false);
  // Resolved once: the id is gone.
  assert(!session.resolveApproval(sent.approval_id, true));
});

Deno.test("each Peon approval gets a new id", async () => {
  const { session, events, approvals, request } = setup();
  const first = approvals.request(request, new AbortController().signal);
  while (events.length < 1) await Promise.resolve();
  const second = approvals.request(request, new AbortController().signal);
  while (events.length < 2) await Promise.resolve();
  const ids = events.map((e) => (e.type === "approval.requested" ? e.approval_id : ""));
  assert(ids[0] !== ids[1], "an approval id was reused");
  for (const id of ids) session.resolveApproval(id, true);
  assertEquals([await first, await second], [true, true]);
});

Deno.test("a cancelled Peon approval rejects and its id no longer resolves", async () => {
  const { session, events, approvals, request } = setup();
  const controller = new AbortController();
  const decided = approvals.request(request, controller.signal);
  while (events.length === 0) await Promise.resolve();
  controller.abort(new DOMException("turn cancelled", "AbortError"));
  await assertRejects(() => decided, DOMException);
  const sent = events[0]!;
  assert(sent.type === "approval.requested");
  assert(!session.resolveApproval(sent.approval_id, true), "a cancelled approval resolved");
});
