/** The recorded approval summaries (server/sessions/recorder_inputs.ts). */
import { assertEquals } from "../../support/assert.ts";
import { recordedSummarizer } from "../../../server/sessions/recorder_inputs.ts";
import { bashTool } from "../../../server/tools/bash.ts";
import { ToolRegistry } from "../../../server/tools/registry.ts";

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
