/**
 * The agent loop in process (server/core/run_turn.ts) with a scripted provider, tools and
 * context: each kind of step, and each `turn.failed` code.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { FrameTooLargeError } from "../../../protocol/ndjson.ts";
import { ProviderError } from "../../../server/provider/types.ts";
import { Session } from "../../../server/core/session.ts";
import {
  answer,
  call,
  callTools,
  eventsOf,
  only,
  runScripted,
  scriptedContext,
  scriptedTool,
} from "./support.ts";

Deno.test("a text answer streams deltas, completes the message and ends with its usage", async () => {
  const { end, events, types, session } = await runScripted({
    steps: [[
      { type: "text", text: "Hel" },
      { type: "text", text: "lo" },
      { type: "usage", usage: { prompt_tokens: 12, completion_tokens: 3 } },
      { type: "done", message: { role: "assistant", content: "Hello" } },
    ]],
  });
  assertEquals(types, [
    "turn.started",
    "assistant.delta",
    "assistant.delta",
    "assistant.completed",
    "turn.completed",
  ]);
  assertEquals(eventsOf(events, "assistant.delta").map((e) => e.content), ["Hel", "lo"]);
  assertEquals(only(events, "assistant.completed").content, "Hello");
  assertEquals(end, {
    type: "turn.completed",
    steps: 1,
    usage: { input_tokens: 12, output_tokens: 3 },
  });
  assertEquals(session.history, [
    { role: "user", content: "do it" },
    { role: "assistant", content: "Hello" },
  ]);
  assertEquals(session.usage, { input_tokens: 12, output_tokens: 3 });
});

Deno.test("every event of a turn carries the turn's envelope", async () => {
  const { events, session, turn } = await runScripted({ steps: [answer("ok")] });
  for (const e of events) {
    assertEquals([e.request_id, e.session_id], ["r1", session.id]);
    assert("turn_id" in e && e.turn_id === turn.id, `${e.type} without the turn_id`);
  }
});

Deno.test("a turn without reported usage completes without a usage field", async () => {
  const { end } = await runScripted({ steps: [answer("ok")] });
  assertEquals(end, { type: "turn.completed", steps: 1 });
});

Deno.test("reported prompt tokens calibrate the context estimate", async () => {
  const context = scriptedContext();
  await runScripted({
    context,
    steps: [[
      { type: "usage", usage: { prompt_tokens: 40 } },
      { type: "done", message: { role: "assistant", content: "ok" } },
    ]],
  });
  assertEquals(context.calibrations, [40]);
});

Deno.test("reasoning and notices never become assistant text", async () => {
  const { events } = await runScripted({
    steps: [[
      { type: "reasoning", text: "thinking hard" },
      { type: "notice", message: "the model cannot use tools" },
      { type: "text", text: "answer" },
      { type: "done", message: { role: "assistant", content: "answer" } },
    ]],
  });
  assertEquals(eventsOf(events, "assistant.delta").map((e) => e.content), ["answer"]);
  assertEquals(only(events, "assistant.completed").content, "answer");
});

Deno.test("a client that asked for reasoning and notices gets them as their own events", async () => {
  const { events, types } = await runScripted({
    deps: { reasoning: true, notices: true },
    steps: [[
      { type: "reasoning", text: "thinking" },
      { type: "notice", message: "the model cannot use tools" },
      { type: "text", text: "answer" },
      { type: "done", message: { role: "assistant", content: "answer" } },
    ]],
  });
  assertEquals(types.slice(1, 4), ["assistant.reasoning.delta", "turn.notice", "assistant.delta"]);
  assertEquals(only(events, "assistant.reasoning.delta").content, "thinking");
  assertEquals(only(events, "turn.notice").message, "the model cannot use tools");
  assertEquals(only(events, "assistant.completed").content, "answer");
});

Deno.test("a tool step runs the call, feeds its result back and asks the model again", async () => {
  const runs: unknown[] = [];
  const { end, types, session, requests } = await runScripted({
    tools: [scriptedTool("echo", { runs })],
    steps: [callTools([call("c1", "echo", { text: "hi" })], "Let me look."), answer("done")],
  });
  assertEquals(types, [
    "turn.started",
    "assistant.delta",
    "assistant.completed",
    "tool.proposed",
    "tool.started",
    "tool.completed",
    "assistant.delta",
    "assistant.completed",
    "turn.completed",
  ]);
  assertEquals(runs, [{ text: "hi" }]);
  assertEquals(end, { type: "turn.completed", steps: 2 });
  assertEquals(session.history[2], { role: "tool", tool_call_id: "c1", content: "echo: hi" });
  // The second request carries the call and its result.
  const second = requests[1]!;
  assertEquals(second.at(-1), { role: "tool", tool_call_id: "c1", content: "echo: hi" });
});

Deno.test("a tool call's events carry its id, name, arguments and bounded result", async () => {
  const { events } = await runScripted({
    tools: [scriptedTool("echo")],
    steps: [callTools([call("c1", "echo", { text: "x" })]), answer("ok")],
  });
  const proposed = only(events, "tool.proposed");
  assertEquals([proposed.call_id, proposed.name, proposed.arguments], ["c1", "echo", {
    text: "x",
  }]);
  assertEquals(
    [only(events, "tool.started").call_id, only(events, "tool.started").name],
    ["c1", "echo"],
  );
  const done = only(events, "tool.completed");
  assertEquals([done.success, done.output, done.truncated], [true, "echo: x", false]);
});

Deno.test("several calls of one step run in order, each proposed, started and completed", async () => {
  const runs: unknown[] = [];
  const { events } = await runScripted({
    tools: [scriptedTool("echo", { runs })],
    steps: [
      callTools([call("a", "echo", { text: "1" }), call("b", "echo", { text: "2" })]),
      answer("ok"),
    ],
  });
  assertEquals(
    events.filter((e) => e.type.startsWith("tool.")).map((e) =>
      `${e.type} ${"call_id" in e ? e.call_id : ""}`
    ),
    [
      "tool.proposed a",
      "tool.started a",
      "tool.completed a",
      "tool.proposed b",
      "tool.started b",
      "tool.completed b",
    ],
  );
  assertEquals(runs, [{ text: "1" }, { text: "2" }]);
});

Deno.test("tool output over max_tool_output_bytes is cut and marked truncated", async () => {
  const { events, session } = await runScripted({
    config: { max_tool_output_bytes: 1000 },
    tools: [scriptedTool("big", {
      run: () => Promise.resolve({ success: true, output: "x".repeat(5000), truncated: false }),
    })],
    steps: [callTools([call("c1", "big")]), answer("ok")],
  });
  const done = only(events, "tool.completed");
  assert(new TextEncoder().encode(done.output).length <= 1000, `${done.output.length} bytes`);
  assertEquals(done.truncated, true);
  assertEquals(session.history[2], { role: "tool", tool_call_id: "c1", content: done.output });
});

Deno.test("arguments too large for a frame are shown as cut raw text in tool.proposed", async () => {
  const { events } = await runScripted({
    config: { max_server_frame_bytes: 4096 },
    tools: [scriptedTool("echo")],
    steps: [callTools([call("c1", "echo", { text: "y".repeat(3000) })]), answer("ok")],
  });
  const shown = only(events, "tool.proposed").arguments;
  assertEquals(typeof shown, "string");
  assert((shown as string).length < 3000, `${(shown as string).length} characters`);
});

Deno.test("a compaction plan replaces the history and is reported as context.compacted", async () => {
  let compacted = false;
  const { events, session, requests } = await runScripted({
    session: (() => {
      const s = new Session("/workspace");
      s.history.push({ role: "user", content: "old" }, {
        role: "assistant",
        content: "old answer",
      });
      return s;
    })(),
    context: scriptedContext({
      fit: (history, turnStart) => {
        if (compacted) {
          return { kind: "fits", messages: [{ role: "system", content: "s" }, ...history] };
        }
        compacted = true;
        const kept = history.slice(turnStart);
        return {
          kind: "compacted",
          history: kept,
          newTurnStart: 0,
          beforeTokens: 900,
          afterTokens: 300,
          removedMessages: 2,
          messages: [{ role: "system", content: "s" }, ...kept],
        };
      },
    }),
    steps: [answer("ok")],
  });
  const c = only(events, "context.compacted");
  assertEquals([c.before_tokens, c.after_tokens, c.removed_messages], [900, 300, 2]);
  assertEquals(session.compactedMessages, 2);
  assertEquals(session.history.map((m) => m.content), ["do it", "ok"]);
  assertEquals(requests[0]!.length, 2);
});

Deno.test("a trim plan cuts the history and is reported as session.trimmed without turn_id", async () => {
  const trims: number[] = [];
  const { events, session } = await runScripted({
    context: scriptedContext({
      trim: (history, turnStart) => {
        trims.push(turnStart);
        // Between turns (after the answer) the whole answered turn may go.
        if (turnStart === history.length) {
          return {
            kind: "trimmed",
            history: [],
            newTurnStart: 0,
            removedMessages: history.length,
            historyBytes: 0,
          };
        }
        return { kind: "fits" };
      },
    }),
    steps: [answer("ok")],
  });
  assertEquals(trims, [0, 2]);
  const t = only(events, "session.trimmed");
  assertEquals([t.removed_messages, t.history_bytes], [2, 0]);
  assert(!("turn_id" in t), "session.trimmed carries a turn_id");
  assertEquals(session.history, []);
  assertEquals(session.compactedMessages, 2);
});

// ---------------------------------------------------------------------------------------------
// Failure codes

Deno.test("a provider error fails the turn with provider_error and its message", async () => {
  const { end } = await runScripted({
    steps: [() => {
      throw new ProviderError("provider_error", "provider returned HTTP 500: boom");
    }],
  });
  assertEquals(end, {
    type: "turn.failed",
    code: "provider_error",
    message: "provider returned HTTP 500: boom",
  });
});

Deno.test("a provider's response_limit and tool_limit fail the turn with those codes", async () => {
  for (const code of ["response_limit", "tool_limit"] as const) {
    const { end, events } = await runScripted({
      steps: [
        async function* () {
          yield { type: "text" as const, text: "partial" };
          throw new ProviderError(code, `${code} crossed`);
        },
      ],
    });
    assertEquals(end, { type: "turn.failed", code, message: `${code} crossed` });
    assertEquals(eventsOf(events, "assistant.completed"), []);
  }
});

Deno.test("a delta that cannot fit a frame fails the turn with response_limit", async () => {
  const { end } = await runScripted({
    sink: (e) => {
      if (e.type === "assistant.delta") throw new FrameTooLargeError(e.type, 9000, 8000);
    },
    steps: [answer("too big")],
  });
  assertEquals(end.type, "turn.failed");
  assert(end.type === "turn.failed");
  assertEquals(end.code, "response_limit");
  assertEquals(
    end.message,
    "assistant delta of 9000 bytes does not fit max_server_frame_bytes (8000)",
  );
});

Deno.test("a completed message that cannot fit a frame fails the turn with response_limit", async () => {
  const { end, session } = await runScripted({
    sink: (e) => {
      if (e.type === "assistant.completed") throw new FrameTooLargeError(e.type, 9000, 8000);
    },
    steps: [answer("too big")],
  });
  assert(end.type === "turn.failed");
  assertEquals(end.code, "response_limit");
  assertMatch(end.message, /^assistant message of 9000 bytes/);
  assertEquals(session.history.length, 1, "the unsent answer is not in the history");
});

Deno.test("a model that keeps calling tools fails the turn with step_limit", async () => {
  const { end, session } = await runScripted({
    config: { max_steps: 2 },
    tools: [scriptedTool("echo")],
    steps: [callTools([call("a", "echo")]), callTools([call("b", "echo")])],
  });
  assertEquals(end, { type: "turn.failed", code: "step_limit", message: "agent reached 2 steps" });
  assertEquals(session.history.filter((m) => m.role === "tool").length, 2);
});

Deno.test("a turn too large for the context window fails with context_limit", async () => {
  const { end, requests } = await runScripted({
    context: scriptedContext({
      fit: () => ({ kind: "context_limit", message: "the current turn needs about 900 tokens" }),
    }),
    steps: [answer("never")],
  });
  assertEquals(end, {
    type: "turn.failed",
    code: "context_limit",
    message: "the current turn needs about 900 tokens",
  });
  assertEquals(requests.length, 0);
});

Deno.test("a prompt that leaves the answer less than its reserve goes, and says so in a notice", async () => {
  const { end, events, requests } = await runScripted({
    deps: { notices: true },
    context: scriptedContext({
      fit: (history) => ({
        kind: "fits",
        messages: history,
        tight: { promptTokens: 1700, answerRoom: 348, estimated: false },
      }),
    }),
    steps: [answer("short")],
  });
  assertEquals(end.type, "turn.completed");
  assertEquals(requests.length, 1);
  assertMatch(
    String(only(events, "turn.notice").message),
    /takes about 1700 of the \d+ tokens of context, leaving 348 for the answer/,
  );
});

Deno.test("a turn too large for max_history_bytes fails with history_limit", async () => {
  const { end, types } = await runScripted({
    context: scriptedContext({
      trim: () => ({ kind: "history_limit", message: "the current turn's messages take 99 bytes" }),
    }),
    steps: [answer("never")],
  });
  assertEquals(end, {
    type: "turn.failed",
    code: "history_limit",
    message: "the current turn's messages take 99 bytes",
  });
  assertEquals(types, ["turn.started", "turn.failed"]);
});

Deno.test("an unexpected error fails the turn with internal_error and its text", async () => {
  const { end } = await runScripted({
    steps: [() => {
      throw new TypeError("provider bug");
    }],
  });
  assertEquals(end, {
    type: "turn.failed",
    code: "internal_error",
    message: "provider bug",
  });
});

Deno.test("a provider stream that ends without its final message fails the turn", async () => {
  const { end } = await runScripted({ steps: [[{ type: "text", text: "half" }]] });
  assert(end.type === "turn.failed");
  assertEquals(end.code, "provider_error");
});

Deno.test("a failure message longer than the frame budget is cut to it", async () => {
  const { end, turn } = await runScripted({
    config: { max_server_frame_bytes: 4096 },
    steps: [() => {
      throw new ProviderError("provider_error", "e".repeat(20_000));
    }],
  });
  assert(end.type === "turn.failed");
  assert(end.message.length <= turn.fieldBudget, `${end.message.length} characters`);
  assert(end.message.startsWith("eee"));
});

Deno.test("the tools are prepared before every provider call", async () => {
  let prepared = 0;
  const seen: number[] = [];
  await runScripted({
    deps: {
      prepareTools: () => {
        prepared++;
        return Promise.resolve();
      },
    },
    tools: [scriptedTool("echo", {
      run: () => {
        seen.push(prepared);
        return Promise.resolve({ success: true, output: "", truncated: false });
      },
    })],
    steps: [callTools([call("c1", "echo")]), answer("ok")],
  });
  assertEquals([seen, prepared], [[1], 2]);
});
