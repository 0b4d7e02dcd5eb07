/**
 * Helpers for the `scv acp` integration tests: a real agent process against the scripted
 * provider.
 *
 * @module
 */
import { MockOpenAI, type MockScript } from "../../support/mock_openai.ts";
import { AcpProcess, type AcpStartOptions } from "../../support/acp_process.ts";

/**
 * Runs `fn` against `scv acp` pointed at a mock provider answering `script`; the agent is
 * disposed of and the mock closed afterwards, whatever happened.
 */
export async function withAgent(
  script: MockScript,
  options: AcpStartOptions,
  fn: (agent: AcpProcess, mock: MockOpenAI) => Promise<void>,
): Promise<void> {
  const mock = await MockOpenAI.start(script);
  const agent = await AcpProcess.start({
    ...options,
    config: { base_url: mock.baseUrl, ...options.config },
  });
  try {
    await fn(agent, mock);
  } finally {
    await agent.dispose();
    await mock.close();
  }
}
