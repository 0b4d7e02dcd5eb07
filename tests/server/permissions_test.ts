/**
 * The server under narrow Deno permission sets: what it still does, and how a missing
 * permission shows (a clear tool or provider failure, never a prompt or a crash).
 */
import { assertEquals, assertMatch } from "../support/assert.ts";
import { SERVER_FLAGS, withServer } from "../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";

/** The flags of `deno task server` with the network scoped to `host`. */
function netScoped(host: string): string[] {
  return SERVER_FLAGS.map((f) => f === "--allow-net" ? `--allow-net=${host}` : f);
}

Deno.test("network scoped to the provider's host is enough for a turn", async () => {
  const mock = await MockOpenAI.start([text("scoped")]);
  await withServer(
    mock,
    {
      denoFlags: netScoped("127.0.0.1"),
    },
    async (p) => {
      const { sessionId } = await p.open();
      const t = await p.startTurn(sessionId, "hi");
      assertEquals((await p.terminal(t.turn_id)).type, "turn.completed");
    },
  );
});

Deno.test("a provider host outside --allow-net fails the turn naming the permission", async () => {
  const mock = await MockOpenAI.start([text("unreachable")]);
  await withServer(
    mock,
    {
      denoFlags: netScoped("api.openai.com"),
    },
    async (p) => {
      const { sessionId } = await p.open();
      const { done } = await p.runTurn(sessionId, "hi");
      assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
      assertMatch(done.message, /net access/);
      assertEquals(mock.requests.length, 0);
    },
  );
});

Deno.test("without --allow-run a bash call fails naming the permission and the server keeps going", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "bash", arguments: { command: "echo hi" } }]),
    text("no shell"),
  ]);
  await withServer(
    mock,
    {
      config: { approval_policy: "never" },
      denoFlags: ["--no-prompt", "--allow-read", "--allow-write", "--allow-env", "--allow-net"],
    },
    async (p) => {
      const { sessionId } = await p.open();
      const { t, done } = await p.runTurn(sessionId, "go");
      assertEquals(done.type, "turn.completed");
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertEquals(completed.success, false);
      assertMatch(completed.output, /--allow-run/);
    },
  );
});

Deno.test("a read-only server (--deny-write) starts, and a write fails naming the permission", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{ name: "write_file", arguments: { path: "new.txt", content: "x" } }]),
    text("cannot write"),
  ]);
  await withServer(
    mock,
    {
      config: { approval_policy: "never" },
      denoFlags: ["--no-prompt", "--allow-read", "--deny-write", "--allow-env", "--allow-net"],
    },
    async (p) => {
      const { sessionId } = await p.open();
      const { t } = await p.runTurn(sessionId, "go");
      const completed = p.eventOf(t.turn_id, "tool.completed");
      assertEquals(completed.success, false);
      assertMatch(completed.output, /--allow-write/);
    },
  );
});
