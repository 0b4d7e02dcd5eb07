/**
 * Cancellation reaches every await of the agent loop (server/core/run_turn.ts): the provider
 * call, each event waiting for room, the approval, the tool run. Each ends as `turn.cancelled`,
 * never as `turn.failed`, with every tool call in the history answered.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { TurnEvent } from "../../../protocol/turn_events.ts";
import { CANCELLED_RESULT } from "../../../server/core/turn.ts";
import {
  answer,
  call,
  callTools,
  only,
  runScripted,
  ScriptedApprovals,
  scriptedContext,
  scriptedTool,
  untilAborted,
} from "./support.ts";

/** Waits as a blocked output does, and cancels the turn once the wait has begun. */
function blockThenCancel(controller: AbortController, signal: AbortSignal | undefined) {
  assert(signal, "this event's wait cannot be cancelled");
  const wait = untilAborted(signal);
  setTimeout(() => controller.abort(new DOMException("turn cancelled", "AbortError")), 0);
  return wait;
}

/** A sink that blocks on the first event of `type` until the turn is cancelled. */
function blockOn(type: TurnEvent["type"], controller: AbortController) {
  let blocked = false;
  return (event: TurnEvent, signal: AbortSignal | undefined) => {
    if (event.type !== type || blocked) return;
    blocked = true;
    return blockThenCancel(controller, signal);
  };
}

const echo = (runs: unknown[] = []) => scriptedTool("echo", { runs });

Deno.test("cancelling while the provider has not answered ends the turn cancelled", async () => {
  const controller = new AbortController();
  const { end, types, session } = await runScripted({
    controller,
    steps: [async function* (request) {
      setTimeout(() => controller.abort(), 0);
      yield await untilAborted(request.signal);
    }],
  });
  assertEquals(end, { type: "turn.cancelled" });
  assertEquals(types, ["turn.started", "turn.cancelled"]);
  assertEquals(session.history, [{ role: "user", content: "do it" }]);
});

Deno.test("cancelling mid-stream stops the deltas and completes no message", async () => {
  const controller = new AbortController();
  const { types } = await runScripted({
    controller,
    steps: [async function* (request) {
      yield { type: "text" as const, text: "half" };
      controller.abort();
      request.signal.throwIfAborted();
      yield { type: "text" as const, text: "never" };
    }],
  });
  assertEquals(types, ["turn.started", "assistant.delta", "turn.cancelled"]);
});

for (
  const type of [
    "assistant.delta",
    "assistant.completed",
    "tool.proposed",
    "tool.started",
  ] as const
) {
  Deno.test(`cancelling while ${type} waits for room ends the turn cancelled`, async () => {
    const controller = new AbortController();
    const runs: unknown[] = [];
    const { end, types } = await runScripted({
      controller,
      sink: blockOn(type, controller),
      tools: [echo(runs)],
      steps: [callTools([call("c1", "echo")], "text"), answer("never")],
    });
    assertEquals(end.type, "turn.cancelled");
    assert(!types.includes(type), `${type} was sent: ${types.join(", ")}`);
    assertEquals(runs, [], "the tool ran");
  });
}

Deno.test("cancelling while context.compacted waits for room ends the turn cancelled", async () => {
  const controller = new AbortController();
  const { end, requests } = await runScripted({
    controller,
    sink: blockOn("context.compacted", controller),
    context: scriptedContext({
      fit: (history) => ({
        kind: "compacted",
        history,
        newTurnStart: 0,
        beforeTokens: 2,
        afterTokens: 1,
        removedMessages: 0,
        messages: history,
      }),
    }),
    steps: [answer("never")],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(requests, [], "a provider call was made");
});

Deno.test("cancelling while session.trimmed waits for room ends the turn cancelled", async () => {
  const controller = new AbortController();
  const { end, requests } = await runScripted({
    controller,
    sink: blockOn("session.trimmed", controller),
    context: scriptedContext({
      trim: (history, turnStart) => ({
        kind: "trimmed",
        history,
        newTurnStart: turnStart,
        removedMessages: 0,
        historyBytes: 1,
      }),
    }),
    steps: [answer("never")],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(requests, [], "a provider call was made");
});

Deno.test("cancelling while approval is pending ends the turn and never runs the call", async () => {
  const controller = new AbortController();
  const runs: unknown[] = [];
  const { end, types, session } = await runScripted({
    controller,
    config: { approval_policy: "always" },
    approvals: new ScriptedApprovals((_request, signal) => blockThenCancel(controller, signal)),
    tools: [echo(runs)],
    steps: [callTools([call("c1", "echo")])],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(runs, []);
  assertEquals(types, ["turn.started", "assistant.completed", "tool.proposed", "turn.cancelled"]);
  assertEquals(session.history.at(-1), {
    role: "tool",
    tool_call_id: "c1",
    content: CANCELLED_RESULT,
  });
});

Deno.test("a cancellation that lands as the approval arrives still runs nothing", async () => {
  const controller = new AbortController();
  const runs: unknown[] = [];
  const { end, types } = await runScripted({
    controller,
    config: { approval_policy: "always" },
    approvals: new ScriptedApprovals(() => {
      controller.abort();
      return Promise.resolve(true);
    }),
    tools: [echo(runs)],
    steps: [callTools([call("c1", "echo")])],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(runs, []);
  assert(!types.includes("tool.started"), types.join(", "));
});

Deno.test("cancelling a running tool reports it cancelled, then ends the turn", async () => {
  const controller = new AbortController();
  const { end, events, types } = await runScripted({
    controller,
    tools: [scriptedTool("slow", {
      run: (_args, ctx) => blockThenCancel(controller, ctx.signal),
    })],
    steps: [callTools([call("c1", "slow")])],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(types.slice(-2), ["tool.completed", "turn.cancelled"]);
  const done = only(events, "tool.completed");
  assertEquals([done.success, done.output], [false, CANCELLED_RESULT]);
});

Deno.test("a tool that reports success after the cancellation is reported as failed", async () => {
  const controller = new AbortController();
  const { events } = await runScripted({
    controller,
    tools: [scriptedTool("late", {
      run: async (_args, ctx) => {
        await blockThenCancel(controller, ctx.signal).catch(() => {});
        return { success: true, output: "done anyway", truncated: false };
      },
    })],
    steps: [callTools([call("c1", "late")])],
  });
  const done = only(events, "tool.completed");
  assertEquals([done.success, done.output], [false, "done anyway"]);
});

Deno.test("after a cancelled call the step's later calls are never proposed", async () => {
  const controller = new AbortController();
  const runs: unknown[] = [];
  const { types, session } = await runScripted({
    controller,
    tools: [
      scriptedTool("slow", { run: (_args, ctx) => blockThenCancel(controller, ctx.signal) }),
      echo(runs),
    ],
    steps: [callTools([call("a", "slow"), call("b", "echo")])],
  });
  assertEquals(types.filter((t) => t === "tool.proposed").length, 1);
  assertEquals(runs, []);
  // Both calls are answered in the history, so the next request stays valid.
  assertEquals(
    session.history.filter((m) => m.role === "tool").map((m) => m.content),
    [CANCELLED_RESULT, CANCELLED_RESULT],
  );
});

Deno.test("a turn cancelled before it ran still shows its start, then its cancellation", async () => {
  const controller = new AbortController();
  controller.abort();
  const { types, requests } = await runScripted({ controller, steps: [answer("never")] });
  assertEquals(types, ["turn.started", "turn.cancelled"]);
  assertEquals(requests, [], "a provider call was made");
});

Deno.test("cancelling while the context is being fitted ends the turn cancelled", async () => {
  const controller = new AbortController();
  const { end, requests } = await runScripted({
    controller,
    context: scriptedContext({
      fit: async (history) => {
        await Promise.resolve();
        controller.abort();
        return { kind: "fits", messages: history };
      },
    }),
    steps: [answer("never")],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(requests, [], "a provider call was made");
});

Deno.test("cancelling while the tools are being prepared ends the turn cancelled", async () => {
  const controller = new AbortController();
  const { end, requests } = await runScripted({
    controller,
    deps: { prepareTools: (signal) => blockThenCancel(controller, signal) },
    steps: [answer("never")],
  });
  assertEquals(end.type, "turn.cancelled");
  assertEquals(requests, [], "a provider call was made");
});
