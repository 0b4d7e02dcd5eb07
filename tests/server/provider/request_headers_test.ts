/** Provider request headers: provider_headers merged with scv's own by name, whatever the case. */
import { assertEquals } from "../../support/assert.ts";
import { mergeHeaders } from "../../../server/provider/request_headers.ts";
import { MockOpenAI, text } from "../../support/mock_openai.ts";
import { ServerProcess } from "../../support/server_process.ts";
import { ANTHROPIC, RESPONSES } from "./api_dialects.ts";

Deno.test("a later header set wins for a name whatever its case", () => {
  assertEquals(
    mergeHeaders({ "Content-Type": "a", "x-a": "1" }, { "content-type": "b" }, { "X-A": "2" }),
    { "content-type": "b", "x-a": "2" },
  );
});

const CASES = [
  {
    provider: "openai-chat",
    reply: text("ok"),
    auth: "authorization",
    key: "Bearer sk-the-key-0001",
  },
  {
    provider: "openai-responses",
    reply: RESPONSES.text("ok"),
    auth: "authorization",
    key: "Bearer sk-the-key-0001",
  },
  { provider: "anthropic", reply: ANTHROPIC.text("ok"), auth: "x-api-key", key: "sk-the-key-0001" },
] as const;

for (const c of CASES) {
  Deno.test(`${c.provider}: a provider_headers name in other case never doubles scv's own header`, async () => {
    const mock = await MockOpenAI.start(() => c.reply);
    const server = await ServerProcess.start({
      config: {
        base_url: mock.baseUrl,
        provider: c.provider,
        provider_headers: {
          "Content-Type": "text/plain",
          "Accept": "application/json",
          "Anthropic-Version": "2023-06-01",
          [c.auth === "authorization" ? "Authorization" : "X-Api-Key"]: "${SCV_TEST_OTHER_TOKEN}",
        },
      },
      env: {
        OPENAI_API_KEY: "sk-the-key-0001",
        ANTHROPIC_API_KEY: "sk-the-key-0001",
        SCV_TEST_OTHER_TOKEN: "other-token-0002",
      },
    });
    try {
      const { sessionId } = await server.open();
      const { done } = await server.runTurn(sessionId, "hi");
      assertEquals(done.type, "turn.completed", JSON.stringify(done));
      const h = mock.requests[0]!.headers;
      assertEquals(h.get("content-type"), "application/json");
      assertEquals(h.get("accept"), "text/event-stream");
      assertEquals(h.get(c.auth), c.key);
      assertEquals(h.get("anthropic-version"), "2023-06-01");
      assertEquals(await server.stop(), 0);
    } catch (e) {
      await server.kill();
      throw e;
    } finally {
      await mock.close();
    }
  });
}
