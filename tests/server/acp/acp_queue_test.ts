/**
 * `scv acp` queues a `session/prompt` that arrives while one runs in the same session (scv 0.3,
 * docs/steering.md): it waits in the session core's inbox, runs when the first has run, and is
 * answered then; `session/cancel` cancels the running prompt only.
 */
import { assertEquals } from "../../support/assert.ts";
import { text, toolCalls } from "../../support/mock_openai.ts";
import { withAgent } from "./support.ts";

/** A permission answer the test gives when it chooses to. */
function heldPermission() {
  const gate = Promise.withResolvers<void>();
  return {
    release: () => gate.resolve(),
    permission: async (request: { options: { optionId: string; kind: string }[] }) => {
      await gate.promise;
      const allow = request.options.find((o) => o.kind === "allow_once")!;
      return { outcome: { outcome: "selected" as const, optionId: allow.optionId } };
    },
  };
}

Deno.test("acp: a prompt sent while one runs is queued and answered after it has run", async () => {
  const held = heldPermission();
  await withAgent(
    [
      toolCalls([{ name: "bash", arguments: { command: "true" } }]),
      text("first done"),
      text("second done"),
    ],
    { config: { approval_policy: "always" }, permission: held.permission },
    async (agent, mock) => {
      await agent.initialize();
      const { sessionId } = await agent.newSession(await agent.workspace());
      const answered: string[] = [];
      const first = agent.prompt(sessionId, "run true").then((r) => {
        answered.push("first");
        return r;
      });
      await agent.until(() => agent.permissionRequests.length === 1);
      const second = agent.prompt(sessionId, "then this").then((r) => {
        answered.push("second");
        return r;
      });
      // Held at the permission: the second prompt waits and reaches no provider.
      held.release();
      assertEquals((await first).stopReason, "end_turn");
      assertEquals((await second).stopReason, "end_turn");
      assertEquals(answered, ["first", "second"]);
      assertEquals(mock.requests.length, 3);
      const users = mock.requests[2]!.body.messages.filter((m) => m.role === "user");
      assertEquals(users.map((m) => m.content), ["run true", "then this"]);
    },
  );
});

Deno.test("acp: session/cancel cancels the running prompt only, and the queued one runs", async () => {
  const held = heldPermission();
  await withAgent(
    [
      toolCalls([{ name: "bash", arguments: { command: "true" } }]),
      text("queued done"),
    ],
    { config: { approval_policy: "always" }, permission: held.permission },
    async (agent) => {
      await agent.initialize();
      const { sessionId } = await agent.newSession(await agent.workspace());
      const first = agent.prompt(sessionId, "run true");
      await agent.until(() => agent.permissionRequests.length === 1);
      const second = agent.prompt(sessionId, "after the cancel");
      await agent.agent.notify("session/cancel", { sessionId });
      assertEquals((await first).stopReason, "cancelled");
      assertEquals((await second).stopReason, "end_turn");
      assertEquals(agent.messageText(sessionId).includes("queued done"), true);
      held.release();
    },
  );
});
