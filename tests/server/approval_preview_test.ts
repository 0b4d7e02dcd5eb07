/**
 * Approval previews through the real server: `approval.requested.preview` for `write_file` and
 * `edit_file` is the diff the call would make, bounded to the frame with its head and tail kept.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { withServer } from "../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";

const encoder = new TextEncoder();

Deno.test("an edit_file approval previews the diff against the file as it is now", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      id: "e1",
      name: "edit_file",
      arguments: { path: "notes.txt", old_string: "two", new_string: "TWO" },
    }]),
    text("ok"),
  ]);
  await withServer(mock, { config: { approval_policy: "on-risk" } }, async (p) => {
    const ws = await Deno.makeTempDir({ dir: p.tempDir, prefix: "ws-" });
    await Deno.writeTextFile(`${ws}/notes.txt`, "one\ntwo\nthree\n");
    const { sessionId } = await p.open(ws);
    const t = await p.startTurn(sessionId, "edit");
    const req = await p.nextOf("approval.requested");
    assertEquals(
      req.preview,
      "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
    );
    // Nothing was written while asking.
    assertEquals(await Deno.readTextFile(`${ws}/notes.txt`), "one\ntwo\nthree\n");
    await p.send({
      type: "approval.resolve",
      request_id: "r",
      session_id: sessionId,
      approval_id: req.approval_id,
      approved: false,
    });
    await p.terminal(t.turn_id);
    assertEquals(p.schemaErrors, []);
  });
});

Deno.test("a write_file approval of a new file previews every line as added", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      id: "w1",
      name: "write_file",
      arguments: { path: "new.txt", content: "a\nb\n" },
    }]),
    text("ok"),
  ]);
  await withServer(mock, { config: { approval_policy: "always" } }, async (p) => {
    const { sessionId } = await p.open();
    await p.startTurn(sessionId, "write");
    const req = await p.nextOf("approval.requested");
    assertMatch(req.preview, /@@ -0,0 \+1,2 @@\n\+a\n\+b\n$/);
  });
});

Deno.test("a preview too large for the frame keeps its head and tail and says what was left out", async () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${"x".repeat(20)}`);
  const content = lines.join("\n") + "\n";
  const frame = 64 * 1024;
  const mock = await MockOpenAI.start([
    toolCalls([{ id: "w1", name: "write_file", arguments: { path: "big.txt", content } }]),
    text("ok"),
  ]);
  await withServer(mock, {
    config: { approval_policy: "always", max_server_frame_bytes: frame },
  }, async (p) => {
    const { sessionId } = await p.open();
    await p.startTurn(sessionId, "write");
    const req = await p.nextOf("approval.requested");
    assert(req.preview.length < content.length);
    assertMatch(req.preview, /^--- a\/big.txt\n\+\+\+ b\/big.txt\n@@ -0,0 \+1,5000 @@\n\+line 0 /);
    assertMatch(req.preview, /\+line 4999 x+\n$/);
    assertMatch(req.preview, /\n… \d+ lines \(\d+ bytes\) of the diff left out …\n/);
    const raw = p.rawLines.find((l) => l.includes('"approval.requested"'))!;
    const bytes = encoder.encode(raw).length;
    // Within the frame, and most of it used.
    assert(bytes <= frame && bytes > frame / 2, `${bytes}`);
  });
});

Deno.test("turn.completed carries scv's own context count when the provider reports no usage", async () => {
  const mock = await MockOpenAI.start([text("an answer of a few words")]);
  await withServer(mock, {}, async (p) => {
    const { sessionId } = await p.open();
    const { done } = await p.runTurn(sessionId, "hello");
    assertEquals(done.type, "turn.completed");
    assertEquals(done.usage, undefined);
    assert(
      Number.isInteger(done.context_tokens) && done.context_tokens > 5,
      `${done.context_tokens}`,
    );
    assertEquals(p.schemaErrors, []);
  });
});
