/** What a recorder reads of a live session (server/sessions/recorder_inputs.ts). */
import { assertEquals } from "../../support/assert.ts";
import { Session } from "../../../server/core/session.ts";
import { liveSessionView, recordedSummarizer } from "../../../server/sessions/recorder_inputs.ts";
import { bashTool } from "../../../server/tools/bash.ts";
import { ToolRegistry } from "../../../server/tools/registry.ts";

Deno.test("the live view reads the session's history, seq and settings as they are now", () => {
  const session = new Session("/work");
  let model = "m1";
  const view = liveSessionView(session, { model: () => model, approvalPolicy: () => "never" });
  assertEquals([view.id, view.cwd, view.history.length, view.lastSeq], [session.id, "/work", 0, 0]);
  session.history.push({ role: "user", content: "hi" });
  session.seq.take();
  model = "m2";
  assertEquals([view.history.length, view.lastSeq, view.model], [1, 1, "m2"]);
  assertEquals([view.approvalPolicy, view.configured], ["never", false]);
});

Deno.test("the live view says configured when its settings say so", () => {
  const view = liveSessionView(new Session("/w"), {
    model: () => "m",
    approvalPolicy: () => "always",
    configured: () => true,
  });
  assertEquals(view.configured, true);
});

Deno.test("a recorded call's summary comes from the tools loaded at the time", () => {
  const loaded: { tools?: ToolRegistry } = {};
  const summarize = recordedSummarizer(() => loaded.tools);
  assertEquals(summarize("bash", '{"command":"ls"}'), undefined);
  loaded.tools = new ToolRegistry([bashTool]);
  assertEquals(summarize("bash", '{"command":"ls"}'), "Run shell command: ls");
});

Deno.test("a recorded call of an unknown tool or with unparsable arguments has no summary", () => {
  const summarize = recordedSummarizer(() => new ToolRegistry([bashTool]));
  assertEquals(summarize("nope", "{}"), undefined);
  assertEquals(summarize("bash", "{not json"), undefined);
  assertEquals(summarize("bash", '{"command": 3}'), undefined);
});
