/** Hooks under `scv acp`: the session's start and end, and the prompt's hooks, fire as in Peon. */
import { assertEquals, assertMatch } from "../../support/assert.ts";
import { text } from "../../support/mock_openai.ts";
import { withAgent } from "./support.ts";

Deno.test("acp: SessionStart, UserPromptSubmit, Stop and SessionEnd hooks fire for an ACP session", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-acp-hooks-" }));
  const log = `${dir}/events.jsonl`;
  const hook = [{ hooks: [{ type: "command" as const, command: `{ cat; echo; } >> ${log}` }] }];
  try {
    await withAgent([text("hi")], {
      config: {
        hooks: { SessionStart: hook, UserPromptSubmit: hook, Stop: hook, SessionEnd: hook },
      },
    }, async (agent, mock) => {
      await agent.initialize();
      const cwd = await agent.workspace();
      const { sessionId } = await agent.newSession(cwd);
      await agent.prompt(sessionId, "hello");
      assertEquals((await agent.close()).code, 0);
      const events = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
      assertEquals(events.map((e) => e.hook_event_name), [
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
        "SessionEnd",
      ]);
      assertEquals([events[0].source, events[0].session_id, events[0].cwd], [
        "startup",
        sessionId,
        cwd,
      ]);
      assertEquals(events[1].prompt, "hello");
      assertEquals(events[3].reason, "other");
      assertMatch(JSON.stringify(mock.requests[0]!.body.messages), /hello/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
