import { assert, assertEquals } from "../../support/assert.ts";
import {
  type MappedEvent,
  slimmed,
  type TurnUpdates,
  UpdateMapper,
} from "../../../server/acp/updates.ts";
import { TURN_EVENT_TYPES } from "../../../protocol/turn_events.ts";

function mapper(maxDiffBytes = 1024): UpdateMapper {
  return new UpdateMapper({
    cwd: "/ws",
    title: (name, args) =>
      name === "bash" ? `Run shell command: ${(args as { command: string }).command}` : undefined,
    maxDiffBytes,
  });
}

Deno.test("an assistant delta is an agent_message_chunk of its text", () => {
  assertEquals(mapper().map({ type: "assistant.delta", content: "Hel" }), [
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hel" } },
  ]);
});

Deno.test("a reasoning delta is an agent_thought_chunk, never message text", () => {
  assertEquals(mapper().map({ type: "assistant.reasoning.delta", content: "hmm" }), [
    { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
  ]);
});

Deno.test("a proposed call is a pending tool_call with kind, title, locations and raw input", () => {
  const m = mapper();
  assertEquals(
    m.map({ type: "tool.proposed", call_id: "c1", name: "bash", arguments: { command: "ls" } }),
    [{
      sessionUpdate: "tool_call",
      toolCallId: "c1",
      title: "Run shell command: ls",
      kind: "execute",
      status: "pending",
      locations: [],
      rawInput: { command: "ls" },
    }],
  );
  const [read] = m.map({
    type: "tool.proposed",
    call_id: "c2",
    name: "read_file",
    arguments: { path: "src/a.ts" },
  });
  assertEquals(read, {
    sessionUpdate: "tool_call",
    toolCallId: "c2",
    title: "read_file",
    kind: "read",
    status: "pending",
    locations: [{ path: "/ws/src/a.ts" }],
    rawInput: { path: "src/a.ts" },
  });
});

Deno.test("a title function that throws leaves the tool name as the title", () => {
  const m = new UpdateMapper({
    cwd: "/ws",
    title: () => {
      throw new Error("x");
    },
    maxDiffBytes: 1,
  });
  const [u] = m.map({ type: "tool.proposed", call_id: "c", name: "glob", arguments: {} });
  assertEquals((u as { title: string }).title, "glob");
});

Deno.test("an approval request retitles the call with the approval summary", () => {
  assertEquals(
    mapper().map({
      type: "approval.requested",
      approval_id: "a",
      call_id: "c1",
      name: "bash",
      risk: "process",
      cwd: "/ws",
      summary: "Run shell command: rm -rf x",
    }),
    [{ sessionUpdate: "tool_call_update", toolCallId: "c1", title: "Run shell command: rm -rf x" }],
  );
});

Deno.test("a started call is in_progress; a completed one completed or failed with its output", () => {
  const m = mapper();
  m.map({ type: "tool.proposed", call_id: "c1", name: "bash", arguments: { command: "ls" } });
  assertEquals(m.map({ type: "tool.started", call_id: "c1", name: "bash" }), [
    { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
  ]);
  assertEquals(
    m.map({
      type: "tool.completed",
      call_id: "c1",
      name: "bash",
      success: false,
      output: "exit 1",
      truncated: false,
    }),
    [{
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "exit 1" } }],
    }],
  );
});

Deno.test("a completed write carries a diff block with the old and new text", () => {
  const m = mapper();
  m.map({
    type: "tool.proposed",
    call_id: "w",
    name: "edit_file",
    arguments: { path: "a.txt", old_string: "a", new_string: "b" },
  });
  assertEquals(m.changedFile("w"), "/ws/a.txt");
  const [u] = m.map(
    {
      type: "tool.completed",
      call_id: "w",
      name: "edit_file",
      success: true,
      output: "Edited",
      truncated: false,
    },
    { path: "/ws/a.txt", oldText: "a\n", newText: "b\n" },
  );
  assertEquals((u as { content: unknown[] }).content, [
    { type: "content", content: { type: "text", text: "Edited" } },
    { type: "diff", path: "/ws/a.txt", oldText: "a\n", newText: "b\n" },
  ]);
  assertEquals(m.call("w"), undefined);
});

/** Proposes a write_file call "w", completes it with `diff`, and returns the first update. */
function proposeAndCompleteWrite(
  m: UpdateMapper,
  path: string,
  content: string,
  success: boolean,
  output: string,
  diff: { path: string; oldText: string | null; newText: string },
) {
  m.map({
    type: "tool.proposed",
    call_id: "w",
    name: "write_file",
    arguments: { path, content },
  });
  const [u] = m.map(
    { type: "tool.completed", call_id: "w", name: "write_file", success, output, truncated: false },
    diff,
  );
  return u;
}

Deno.test("a new file's diff has a null old text", () => {
  const m = mapper();
  const u = proposeAndCompleteWrite(m, "n.txt", "x", true, "Created", {
    path: "/ws/n.txt",
    oldText: null,
    newText: "x",
  });
  assertEquals((u as { content: unknown[] }).content[1], {
    type: "diff",
    path: "/ws/n.txt",
    oldText: null,
    newText: "x",
  });
});

Deno.test("a diff one byte over the bound is left out; at the bound it is kept", () => {
  for (const [bound, kept] of [[4, true], [3, false]] as const) {
    const m = mapper(bound);
    const u = proposeAndCompleteWrite(m, "a", "cd", true, "ok", {
      path: "/ws/a",
      oldText: "ab",
      newText: "cd",
    });
    assertEquals((u as { content: unknown[] }).content.length, kept ? 2 : 1);
  }
});

Deno.test("a failed write carries no diff", () => {
  const m = mapper();
  const u = proposeAndCompleteWrite(m, "a", "c", false, "denied", {
    path: "/ws/a",
    oldText: "a",
    newText: "a",
  });
  assertEquals((u as { content: unknown[] }).content.length, 1);
});

Deno.test("non-file tools and unknown calls name no changed file", () => {
  const m = mapper();
  m.map({ type: "tool.proposed", call_id: "b", name: "bash", arguments: { command: "ls" } });
  assertEquals(m.changedFile("b"), undefined);
  assertEquals(m.changedFile("nope"), undefined);
});

Deno.test("terminal, completion and context events map to no update", () => {
  const m = mapper();
  for (
    const type of [
      "turn.started",
      "assistant.completed",
      "context.compacted",
      "turn.completed",
      "turn.failed",
    ]
  ) {
    assertEquals(m.map({ type } as MappedEvent), []);
  }
});

Deno.test("every turn event type has an ACP mapping, and one left out does not compile", () => {
  const m = mapper();
  for (const type of TURN_EVENT_TYPES) {
    // Bodies are irrelevant for the no-update entries; the others need their fields.
    const event = {
      type,
      call_id: "c",
      name: "bash",
      arguments: {},
      content: "",
      message: "",
      steps: [],
    };
    assertEquals(
      Array.isArray(m.map({ ...event, output: "", success: true } as MappedEvent)),
      true,
    );
  }
  // @ts-expect-error: "turn.failed" (and the rest) missing from the table
  const partial: TurnUpdates = { "turn.started": () => [] };
  void partial;
});

Deno.test("the mapper forgets the oldest open call past its bound", () => {
  const m = mapper();
  for (let i = 0; i <= 1024; i++) {
    m.map({ type: "tool.proposed", call_id: `c${i}`, name: "bash", arguments: { command: "x" } });
  }
  assertEquals(m.call("c0"), undefined);
  assert(m.call("c1024") !== undefined && m.call("c1") !== undefined);
});

Deno.test("plan.updated is a plan update with one entry per step, done read as completed", () => {
  assertEquals(
    mapper().map({
      type: "plan.updated",
      steps: [{ text: "Read", status: "done" }, { text: "Fix", status: "in_progress" }],
    }),
    [{
      sessionUpdate: "plan",
      entries: [
        { content: "Read", priority: "medium", status: "completed" },
        { content: "Fix", priority: "medium", status: "in_progress" },
      ],
    }],
  );
});

Deno.test("a turn notice is an info notice titled with its message", () => {
  assertEquals(mapper().map({ type: "turn.notice", message: "Model cannot use tools" }), [
    { sessionUpdate: "notice", severity: "info", title: "Model cannot use tools" },
  ]);
});

Deno.test("slimmed drops a result's diff blocks and keeps its text; an update without one is kept as is", () => {
  const text = { type: "content" as const, content: { type: "text" as const, text: "ok" } };
  const withDiff = {
    sessionUpdate: "tool_call_update" as const,
    toolCallId: "c",
    status: "completed" as const,
    content: [text, { type: "diff" as const, path: "/a", oldText: "a", newText: "b" }],
  };
  assertEquals(slimmed(withDiff), { ...withDiff, content: [text] });
  const plain = { sessionUpdate: "tool_call_update" as const, toolCallId: "c", content: [text] };
  assert(slimmed(plain) === plain);
});

Deno.test("slimmed drops a tool call's raw input and keeps its title", () => {
  const call = {
    sessionUpdate: "tool_call" as const,
    toolCallId: "c",
    title: "Run shell command: x",
    rawInput: { command: "x" },
  };
  const { rawInput: _, ...lean } = call;
  assertEquals(slimmed(call), lean);
  assert(slimmed(lean) === lean);
});
