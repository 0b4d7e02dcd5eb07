/**
 * `scv acp` with a client that offers fs.readTextFile and fs.writeTextFile: the file tools go
 * through the editor, not the disk.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { AcpProcess } from "../../support/acp_process.ts";

const FS = { fs: { readTextFile: true, writeTextFile: true } };

Deno.test("acp: write_file goes through the client's fs/write_text_file, not the disk", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      id: "w1",
      name: "write_file",
      arguments: { path: "src/new.ts", content: "x = 1\n" },
    }]),
    text("Done."),
  ]);
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "never" },
  });
  try {
    await agent.initialize(FS);
    const ws = await agent.workspace();
    const { sessionId } = await agent.newSession(ws);
    assertEquals((await agent.prompt(sessionId, "Create it")).stopReason, "end_turn");
    assertEquals(agent.writes, [{ sessionId, path: `${ws}/src/new.ts`, content: "x = 1\n" }]);
    assertEquals(await Deno.stat(`${ws}/src/new.ts`).then(() => true, () => false), false);
    const done = agent.updatesOf(sessionId, "tool_call_update").at(-1) as Record<string, unknown>;
    assertEquals(done.status, "completed");
    assertEquals((done.content as Array<Record<string, unknown>>).find((c) => c.type === "diff"), {
      type: "diff",
      path: `${ws}/src/new.ts`,
      oldText: null,
      newText: "x = 1\n",
    });
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: edit_file edits the editor's unsaved buffer and writes it back through the client", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      id: "e1",
      name: "edit_file",
      arguments: { path: "a.txt", old_string: "unsaved", new_string: "edited" },
    }]),
    text("Done."),
  ]);
  const buffers = new Map<string, string>();
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "never" },
    buffers,
  });
  try {
    await agent.initialize(FS);
    const ws = await agent.workspace();
    await Deno.writeTextFile(`${ws}/a.txt`, "saved text\n");
    buffers.set(`${ws}/a.txt`, "unsaved text\n");
    const { sessionId } = await agent.newSession(ws);
    assertEquals((await agent.prompt(sessionId, "Edit it")).stopReason, "end_turn");
    assertEquals(buffers.get(`${ws}/a.txt`), "edited text\n");
    assertEquals(await Deno.readTextFile(`${ws}/a.txt`), "saved text\n");
    const done = agent.updatesOf(sessionId, "tool_call_update").at(-1) as Record<string, unknown>;
    assertEquals((done.content as Array<Record<string, unknown>>).find((c) => c.type === "diff"), {
      type: "diff",
      path: `${ws}/a.txt`,
      oldText: "unsaved text\n",
      newText: "edited text\n",
    });
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: read_file reads the editor's buffer through fs/read_text_file, numbered", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "r1", name: "read_file", arguments: { path: "b.txt", offset: 2, limit: 1 } }]),
    text("Read."),
  ]);
  const buffers = new Map<string, string>();
  const agent = await AcpProcess.start({ config: { base_url: mock.baseUrl }, buffers });
  try {
    await agent.initialize(FS);
    const ws = await agent.workspace();
    await Deno.writeTextFile(`${ws}/b.txt`, "disk\n");
    buffers.set(`${ws}/b.txt`, "one\ntwo\nthree\n");
    const { sessionId } = await agent.newSession(ws);
    assertEquals((await agent.prompt(sessionId, "Read it")).stopReason, "end_turn");
    assertEquals(agent.reads[0], { sessionId, path: `${ws}/b.txt`, line: 2, limit: 2 });
    const result = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    assertEquals(result?.content, "     2\ttwo\n");
    // A read inside the workspace asks nothing under on-risk.
    assertEquals(agent.permissionRequests.length, 0);
    const call = agent.updatesOf(sessionId, "tool_call")[0] as Record<string, unknown>;
    assertEquals(call.locations, [{ path: `${ws}/b.txt`, line: 2 }]);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: a client fs error fails the call with the editor's message and the turn goes on", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "r1", name: "read_file", arguments: { path: "missing.txt" } }]),
    text("It is missing."),
  ]);
  const agent = await AcpProcess.start({ config: { base_url: mock.baseUrl } });
  try {
    await agent.initialize(FS);
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "Read it")).stopReason, "end_turn");
    const result = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    assertMatch(
      String(result?.content),
      /Cannot read "missing.txt" through the editor: .*not found/i,
    );
    const done = agent.updatesOf(sessionId, "tool_call_update").at(-1) as Record<string, unknown>;
    assert(done.status === "failed");
  } finally {
    await agent.dispose();
    await mock.close();
  }
});

Deno.test("acp: a write too large for a frame is refused before it is sent, with a message", async () => {
  const content = '"'.repeat(3000); // 3000 bytes, 6000 once escaped in JSON
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "w1", name: "write_file", arguments: { path: "q.txt", content } }]),
    text("Could not."),
  ]);
  const agent = await AcpProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "never", max_server_frame_bytes: 4096 },
  });
  try {
    await agent.initialize(FS);
    const { sessionId } = await agent.newSession(await agent.workspace());
    assertEquals((await agent.prompt(sessionId, "Write quotes")).stopReason, "end_turn");
    assertEquals(agent.writes, []);
    const result = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    assertMatch(
      String(result?.content),
      /through the editor: the content \(3000 bytes\) does not fit max_server_frame_bytes \(4096\); nothing was written/,
    );
    for (const line of agent.lines) assert(new TextEncoder().encode(line).length <= 4096);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});
