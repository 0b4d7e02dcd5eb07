/**
 * web_fetch inside the real server: scv's own `--allow-net` is the most it may reach. The server
 * runs with the network scoped to the provider's host (127.0.0.1); a page on another host
 * (`localhost`, listed in web_fetch_allow) is refused before any request is sent.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { SERVER_FLAGS, withServer } from "../../support/server_process.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { startSite } from "./web/site.ts";

/** The server's options for a test: no approvals, sandbox or records, `allowNet` as its net flag. */
function scoped(allow: string[], allowNet: string) {
  return {
    config: {
      approval_policy: "never" as const,
      sandbox: "off" as const,
      persist_sessions: false,
      checkpoints: false,
      web_fetch_allow: allow,
    },
    denoFlags: SERVER_FLAGS.map((f) => f === "--allow-net" ? `--allow-net=${allowNet}` : f),
  };
}

Deno.test("web_fetch refuses a host outside scv's own --allow-net and fetches one inside it", async () => {
  const site = startSite();
  const mock = await MockOpenAI.start([
    toolCalls([
      { id: "other", name: "web_fetch", arguments: { url: `http://localhost:${site.port}/page` } },
      { id: "own", name: "web_fetch", arguments: { url: `${site.origin}/text` } },
    ]),
    text("done"),
  ]);
  try {
    await withServer(
      mock,
      scoped(["localhost", "127.0.0.1"], "127.0.0.1"),
      async (p) => {
        const { sessionId } = await p.open();
        const { t, done } = await p.runTurn(sessionId, "read the pages");
        assertEquals(done.type, "turn.completed");
        const completed = p.turnEvents(t.turn_id).filter((e) => e.type === "tool.completed");
        const byId = Object.fromEntries(completed.map((e) => [e.call_id, e]));
        assertEquals(byId.other.success, false);
        assertEquals(
          byId.other.output,
          `Refused http://localhost:${site.port}/page: scv's own --allow-net does not permit ` +
            `localhost:${site.port}`,
        );
        assert(byId.own.success, byId.own.output);
        assertMatch(byId.own.output, /plain text, returned as is/);
        assertEquals(site.log.paths, ["/text"]);
      },
    );
  } finally {
    await site.close();
  }
});

Deno.test("web_fetch refuses a host scv may connect to by port but not resolve, saying why", async () => {
  const site = startSite();
  const mock = await MockOpenAI.start([
    toolCalls([
      { id: "c1", name: "web_fetch", arguments: { url: `http://localhost:${site.port}/text` } },
    ]),
    text("done"),
  ]);
  try {
    await withServer(
      mock,
      scoped(["localhost"], `127.0.0.1,localhost:${site.port}`),
      async (p) => {
        const { sessionId } = await p.open();
        const { t, done } = await p.runTurn(sessionId, "read the page");
        assertEquals(done.type, "turn.completed");
        const completed = p.eventOf(t.turn_id, "tool.completed");
        assertEquals(completed.success, false);
        assertEquals(
          completed.output,
          `Refused http://localhost:${site.port}/text: scv's own --allow-net lets it connect to ` +
            `localhost:${site.port} but not resolve localhost, so its addresses cannot be ` +
            `checked; name the host without a port (--allow-net=localhost)`,
        );
        assertEquals(site.log.paths, []);
      },
    );
  } finally {
    await site.close();
  }
});
