/** ACP shows a web_fetch call as kind `fetch`, titled by its approval summary. */
import { assertEquals } from "../../support/assert.ts";
import { UpdateMapper } from "../../../server/acp/updates.ts";
import { toolKind } from "../../../server/acp/tool_view.ts";
import { createWebFetchTool } from "../../../server/tools/web_fetch.ts";

Deno.test("a web_fetch call is an ACP tool_call of kind fetch", () => {
  assertEquals(toolKind("web_fetch"), "fetch");
  const tool = createWebFetchTool();
  const m = new UpdateMapper({
    cwd: "/ws",
    title: (name, args) => name === "web_fetch" ? tool.summary(args as { url: string }) : undefined,
    maxDiffBytes: 1024,
  });
  const [update] = m.map({
    type: "tool.proposed",
    call_id: "c1",
    name: "web_fetch",
    arguments: { url: "https://docs.deno.com/" },
  });
  assertEquals(update, {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Fetch web page: https://docs.deno.com/",
    kind: "fetch",
    status: "pending",
    locations: [],
    rawInput: { url: "https://docs.deno.com/" },
  });
});
