/**
 * One tool call in process (server/core/tool_call.ts, run_tool.ts): approval asked, granted
 * and denied, and every way a call fails into a result the model sees.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { lazyTool } from "../../../server/tools/lazy.ts";
import {
  answer,
  call,
  callTools,
  eventsOf,
  only,
  runScripted,
  ScriptedApprovals,
  scriptedTool,
  untilAborted,
} from "./support.ts";

const twoSteps = (c = call("c1", "echo", { text: "hi" })) => [callTools([c]), answer("ok")];

Deno.test("a call the policy lets run asks no approval", async () => {
  const approvals = new ScriptedApprovals();
  const { types } = await runScripted({
    config: { approval_policy: "on-risk" },
    approvals,
    tools: [scriptedTool("echo", { risk: () => "read" })],
    steps: twoSteps(),
  });
  assertEquals(approvals.requests, []);
  assert(types.includes("tool.started"));
});

Deno.test("an approved call is asked about with its details, then runs", async () => {
  const runs: unknown[] = [];
  const approvals = new ScriptedApprovals(() => Promise.resolve(true));
  const { events } = await runScripted({
    config: { approval_policy: "on-risk" },
    approvals,
    tools: [scriptedTool("echo", { risk: () => "write", runs })],
    steps: twoSteps(),
  });
  assertEquals(approvals.requests, [{
    call_id: "c1",
    name: "echo",
    arguments: { text: "hi" },
    risk: "write",
    summary: "echo hi",
    cwd: "/workspace",
  }]);
  assertEquals(runs, [{ text: "hi" }]);
  assertEquals(only(events, "tool.completed").success, true);
});

Deno.test("a denied call does not run and tells the model it was denied", async () => {
  const runs: unknown[] = [];
  const { events, types } = await runScripted({
    config: { approval_policy: "always" },
    approvals: new ScriptedApprovals(() => Promise.resolve(false)),
    tools: [scriptedTool("echo", { runs })],
    steps: twoSteps(),
  });
  assertEquals(runs, []);
  assert(!types.includes("tool.started"), types.join(", "));
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assertMatch(done.output, /^The user denied this tool call/);
});

Deno.test("a call whose risk grew while waiting for approval does not run", async () => {
  const runs: unknown[] = [];
  let asked = 0;
  const { events } = await runScripted({
    config: { approval_policy: "on-risk" },
    tools: [scriptedTool("echo", { risk: () => (asked++ === 0 ? "write" : "process"), runs })],
    steps: twoSteps(),
  });
  assertEquals(runs, []);
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assertMatch(done.output, /announced with risk "write" but now has risk "process"/);
});

Deno.test("an unknown tool's call fails with the list of available tools", async () => {
  const { events } = await runScripted({
    tools: [scriptedTool("echo"), scriptedTool("other")],
    steps: twoSteps(call("c1", "nope")),
  });
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assertEquals(done.output, `Unknown tool "nope". Available tools: echo, other.`);
});

Deno.test("arguments that are not JSON fail the call and are shown as the raw text", async () => {
  const { events } = await runScripted({
    tools: [scriptedTool("echo")],
    steps: twoSteps(call("c1", "echo", "{not json")),
  });
  assertEquals(only(events, "tool.proposed").arguments, "{not json");
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assertMatch(
    done.output,
    /^Invalid arguments for echo: not valid JSON \(.+\)\. Send a JSON object\.$/,
  );
});

Deno.test("arguments that fail the tool's schema fail the call naming the field", async () => {
  const { events } = await runScripted({
    tools: [scriptedTool("echo")],
    steps: twoSteps(call("c1", "echo", { text: 5 })),
  });
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  assertMatch(done.output, /^Invalid arguments for echo: "text": /);
});

Deno.test("empty arguments count as an empty object", async () => {
  const runs: unknown[] = [];
  await runScripted({
    tools: [scriptedTool("echo", { runs })],
    steps: twoSteps(call("c1", "echo", "  ")),
  });
  assertEquals(runs, [{}]);
});

Deno.test("a tool whose risk check throws fails the call with the error", async () => {
  const { events } = await runScripted({
    tools: [scriptedTool("echo", {
      risk: () => {
        throw new Error("cannot stat");
      },
    })],
    steps: twoSteps(),
  });
  assertEquals(only(events, "tool.completed").output, "Tool echo failed: cannot stat");
});

Deno.test("a tool that throws fails the call with the error, and the turn goes on", async () => {
  const { events, end } = await runScripted({
    tools: [scriptedTool("echo", { run: () => Promise.reject(new Error("disk full")) })],
    steps: twoSteps(),
  });
  const done = only(events, "tool.completed");
  assertEquals([done.success, done.output], [false, "Tool echo failed: disk full"]);
  assertEquals(end.type, "turn.completed");
});

Deno.test("a tool past tool_timeout_ms is stopped and reports the limit", async () => {
  const { events } = await runScripted({
    config: { tool_timeout_ms: 50 },
    tools: [scriptedTool("slow", { run: (_args, ctx) => untilAborted(ctx.signal) })],
    steps: twoSteps(call("c1", "slow")),
  });
  const done = only(events, "tool.completed");
  assertEquals([done.success, done.output], [false, "slow timed out after 50 ms"]);
});

Deno.test("a tool that succeeds only after its time limit is reported as failed", async () => {
  const { events } = await runScripted({
    config: { tool_timeout_ms: 20 },
    tools: [scriptedTool("late", {
      run: async (_args, ctx) => {
        await untilAborted(ctx.signal).catch(() => {});
        return { success: true, output: "finished", truncated: false };
      },
    })],
    steps: twoSteps(call("c1", "late")),
  });
  const done = only(events, "tool.completed");
  assertEquals([done.success, done.output], [false, "finished\n[late timed out after 20 ms]"]);
});

Deno.test("a tool that ignores its signal is abandoned after the stop grace period (2 s)", async () => {
  const { events } = await runScripted({
    config: { tool_timeout_ms: 20 },
    tools: [scriptedTool("stubborn", { run: () => new Promise(() => {}) })],
    steps: twoSteps(call("c1", "stubborn")),
  });
  const done = only(events, "tool.completed");
  assertEquals(done.success, false);
  // The call ended although the tool never settled: it was abandoned, reported as the limit.
  assertEquals(done.output, "stubborn timed out after 20 ms");
});

Deno.test("the tool gets the workspace, the output cap and the secret names", async () => {
  const seen: unknown[] = [];
  await runScripted({
    config: { max_tool_output_bytes: 1234, tool_timeout_ms: 5000 },
    tools: [scriptedTool("echo", {
      run: (_args, ctx) => {
        seen.push([ctx.cwd, ctx.limits, ctx.secretEnv]);
        return Promise.resolve({ success: true, output: "", truncated: false });
      },
    })],
    steps: twoSteps(),
  });
  assertEquals(seen, [["/workspace", { maxOutputBytes: 1234, timeoutMs: 5000 }, []]]);
});

Deno.test("a tool's warm-up starts when its call is ready, before the approval is answered", async () => {
  const order: string[] = [];
  const tool = {
    ...scriptedTool("probe", {
      risk: () => "process",
      run: () => {
        order.push("run");
        return Promise.resolve({ success: true, output: "ran", truncated: false });
      },
    }),
    warm: () => void order.push("warm"),
  };
  const approvals = new ScriptedApprovals(() => {
    order.push("approval");
    return Promise.resolve(true);
  });
  await runScripted({
    config: { approval_policy: "on-risk" },
    approvals,
    tools: [tool],
    steps: [callTools([call("c1", "probe", {})]), answer("ok")],
  });
  assertEquals(order, ["warm", "approval", "run"]);
  // A call plan mode refuses starts nothing.
  order.length = 0;
  await runScripted({
    config: { approval_policy: "plan" },
    tools: [tool],
    steps: [callTools([call("c1", "probe", {})]), answer("ok")],
  });
  assertEquals(order, []);
});

Deno.test("a tool whose code fails to load fails its call saying so; the next call loads it again", async () => {
  let loads = 0;
  const real = scriptedTool("late", { risk: () => "read" });
  const tool = lazyTool({
    name: "late",
    description: "A tool that loads late",
    // A lazy tool brings its JSON Schema: its schema is not zod's until it loads.
    parameters: { type: "object", properties: { text: { type: "string" } } },
  }, () => {
    loads++;
    return loads === 1 ? Promise.reject(new Error("module gone")) : Promise.resolve(real);
  });
  const { events } = await runScripted({
    tools: [tool],
    steps: [
      callTools([call("c1", "late", { text: "a" })]),
      callTools([call("c2", "late", { text: "b" })]),
      answer("ok"),
    ],
  });
  const done = eventsOf(events, "tool.completed");
  assertEquals(done.map((e) => [e.call_id, e.success]), [["c1", false], ["c2", true]]);
  assertEquals(done[0]!.output, "Tool late failed to load: module gone");
  assertEquals(done[1]!.output, "late: b");
  assertEquals(loads, 2);
  // Both calls were announced, the failed one too.
  assertEquals(eventsOf(events, "tool.proposed").map((e) => e.call_id), ["c1", "c2"]);
});
