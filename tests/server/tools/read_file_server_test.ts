/**
 * read_file over the real server: what the model and the client see after the agent's own cap
 * on tool output.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { withServer } from "../../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";

/** Reads the 1,899-line file of the audit through the server, and checks what arrives. */
async function readBigFile(config: Record<string, unknown>): Promise<void> {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "r1", name: "read_file", arguments: { path: "big.txt" } }]),
    text("read it"),
  ]);
  await withServer(mock, { config: { approval_policy: "never", ...config } }, async (p) => {
    const { sessionId, cwd } = await p.open();
    // The audit's file: with the default 65536-byte limit it used to lose bytes in line 607.
    const lines = Array.from(
      { length: 1899 },
      (_, i) => `${String(i).padStart(5, "0")} ${"x".repeat(40)}`,
    );
    await Deno.writeTextFile(`${cwd}/big.txt`, lines.join("\n") + "\n");
    const { t, done } = await p.runTurn(sessionId, "read big.txt");
    assertEquals(done.type, "turn.completed");
    const completed = p.eventOf(t.turn_id, "tool.completed");
    assertEquals(completed.success, true);
    assertEquals(completed.truncated, true);
    const output: string = completed.output;
    assert(!output.includes("bytes omitted"), "the agent's cap cut the output");
    const shown = output.split("\n");
    const footer = shown.pop()!;
    assertMatch(footer, /^\[Output limit reached after line \d+; continue with offset=\d+\]$/);
    const last = Number(footer.match(/after line (\d+)/)![1]);
    assertEquals(shown.length, last);
    shown.forEach((l, i) => assertEquals(l, `${String(i + 1).padStart(6)}\t${lines[i]}`));
    // The model got the same text.
    const toolMsg = mock.requests[1]!.body.messages.find((m) => m.role === "tool")!;
    assertEquals(toolMsg.content, output);
    assertEquals(p.schemaErrors, []);
  });
}

Deno.test("read_file of a large file reaches the client whole-lined, with no bytes omitted", async () => {
  await readBigFile({});
});

Deno.test("read_file stays whole-lined when a small frame limit, not max_tool_output_bytes, caps it", async () => {
  // A 4096-byte frame leaves a tool's output far less room than the 65536-byte default limit.
  await readBigFile({ max_server_frame_bytes: 4096 });
});
