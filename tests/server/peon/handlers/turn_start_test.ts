/** `turn.start` over the real server: how a turn that cannot start fails. */
import { assertEquals, assertMatch } from "../../../support/assert.ts";
import { ServerProcess } from "../../../support/server_process.ts";

Deno.test("a provider_headers variable that is not set fails the turn as provider_error naming it", async () => {
  const server = await ServerProcess.start({
    config: {
      base_url: "http://127.0.0.1:9/v1",
      provider_headers: { "api-key": "${SCV_TEST_UNSET_HEADER_VAR}" },
    },
  });
  try {
    const { sessionId } = await server.open();
    const { done } = await server.runTurn(sessionId, "hi");
    assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
    assertMatch(
      done.message,
      /provider_headers "api-key": environment variable SCV_TEST_UNSET_HEADER_VAR is not set/,
    );
    assertEquals(await server.stop(), 0);
  } catch (e) {
    await server.kill();
    throw e;
  }
});
