/**
 * `scv acp` under the README's locked-down flags: reads and writes scoped to the workspace and
 * scv's config and state, the network to the provider's host, the environment to the documented
 * variables, and `--allow-run=bwrap` only, so bash runs sandboxed or not at all.
 */
import { assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { AcpProcess } from "../../support/acp_process.ts";
import { lockedDownFlags } from "../../support/locked_down.ts";

Deno.test("acp: a sandboxed bash turn and a recorded session under the locked-down flags", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      id: "b1",
      name: "bash",
      arguments: { command: "echo made > made.txt && cat made.txt" },
    }]),
    text("Made it."),
  ]);
  // Outside /tmp, so the sandbox's private /tmp cannot fake the write.
  const top = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "scv-acp-lock-" }),
  );
  await Deno.mkdir(`${top}/ws`);
  const agent = await AcpProcess.start({
    tempDir: top,
    config: { base_url: mock.baseUrl, approval_policy: "auto" },
    denoFlags: lockedDownFlags({
      workspace: `${top}/ws`,
      configDir: `${top}/config.jsonc,${top}/xdg-config`,
      stateDir: `${top}/xdg-state`,
      providerHost: new URL(mock.baseUrl).host,
    }),
  });
  try {
    assertEquals((await agent.initialize()).agentCapabilities?.loadSession, true);
    const { sessionId } = await agent.newSession(`${top}/ws`);
    assertEquals(
      (await agent.prompt(sessionId, "make a file")).stopReason,
      "end_turn",
      agent.stderr,
    );
    // Under auto, the sandboxed command ran without asking.
    assertEquals(agent.permissionRequests.length, 0);
    assertEquals(await Deno.readTextFile(`${top}/ws/made.txt`), "made\n");
    const result = mock.requests[1]!.body.messages.find((m) => m.role === "tool");
    assertMatch(String(result?.content), /made/);
    // The session was recorded in the state directory it may write.
    const files = [...Deno.readDirSync(`${top}/xdg-state/scv/sessions`)].map((e) => e.name);
    assertEquals(files.some((f) => f.startsWith(sessionId)), true, files.join());
    assertEquals((await agent.close()).code, 0);
  } finally {
    await agent.dispose();
    await mock.close();
  }
});
