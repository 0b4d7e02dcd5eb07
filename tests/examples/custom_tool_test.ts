/**
 * The README's custom-tool example is `examples/custom_tool.ts`, verbatim, and it works: a
 * model call to the new tool runs it through the real server.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { withServer } from "../support/server_process.ts";

const EXAMPLE = new URL("../../examples/custom_tool.ts", import.meta.url).pathname;
const README = new URL("../../README.md", import.meta.url).pathname;

Deno.test("the README shows the custom-tool example verbatim", async () => {
  const example = await Deno.readTextFile(EXAMPLE);
  const readme = await Deno.readTextFile(README);
  assert(readme.includes("```ts\n" + example + "```"), "README must embed examples/custom_tool.ts");
});

Deno.test("the custom-tool example serves the Peon protocol and runs its tool", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "wc", name: "word_count", arguments: { text: "one two  three\nfour" } }]),
    text("four words"),
  ]);
  await withServer(mock, { script: EXAMPLE }, async (p) => {
    const { sessionId } = await p.open();
    const t = await p.startTurn(sessionId, "count");
    assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals([completed.name, completed.success, completed.output], [
      "word_count",
      true,
      "4 words",
    ]);
    // The new tool is offered to the model next to the built-in ones.
    const names = mock.requests[0]!.body.tools!.map((t) =>
      (t as { function: { name: string } }).function.name
    );
    assertEquals(names, [
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "glob",
      "grep",
      "web_fetch",
      "update_plan",
      "word_count",
    ]);
    assertEquals(p.schemaErrors, []);
  });
});
