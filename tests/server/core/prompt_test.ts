/**
 * Project instructions: AGENTS.md files from the git root down to the workspace are added to
 * the system prompt, bounded in size.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import {
  buildSystemPrompt,
  findAgentsFiles,
  MAX_AGENTS_MD_BYTES,
} from "../../../server/core/prompt.ts";
import { MockOpenAI, text } from "../../support/mock_openai.ts";
import { withServer } from "../../support/server_process.ts";

async function repo(): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${root}/.git`);
  await Deno.mkdir(`${root}/pkg/sub`, { recursive: true });
  return root;
}

Deno.test("AGENTS.md files from the git root down to the workspace are found, outermost first", async () => {
  const root = await repo();
  try {
    await Deno.writeTextFile(`${root}/AGENTS.md`, "root rules");
    await Deno.writeTextFile(`${root}/pkg/AGENTS.md`, "pkg rules");
    assertEquals(await findAgentsFiles(`${root}/pkg/sub`), [
      `${root}/AGENTS.md`,
      `${root}/pkg/AGENTS.md`,
    ]);
    const prompt = await buildSystemPrompt(`${root}/pkg/sub`);
    assert(prompt.indexOf("root rules") < prompt.indexOf("pkg rules"));
    assertMatch(prompt, new RegExp(`Workspace: ${root}/pkg/sub`));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("outside a git repository only the workspace's own AGENTS.md counts", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${dir}/ws`);
    await Deno.writeTextFile(`${dir}/AGENTS.md`, "parent rules");
    await Deno.writeTextFile(`${dir}/ws/AGENTS.md`, "own rules");
    assertEquals(await findAgentsFiles(`${dir}/ws`), [`${dir}/ws/AGENTS.md`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("AGENTS.md text over the bound is cut with a marker", async () => {
  const root = await repo();
  try {
    await Deno.writeTextFile(`${root}/AGENTS.md`, "a".repeat(MAX_AGENTS_MD_BYTES + 5000));
    const prompt = await buildSystemPrompt(root);
    assertMatch(prompt, /AGENTS\.md truncated/);
    assert(prompt.length < MAX_AGENTS_MD_BYTES + 2000);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the provider sees the workspace's AGENTS.md in the system prompt", async () => {
  const mock = await MockOpenAI.start([text("ok")]);
  await withServer(mock, {}, async (p) => {
    const ws = await Deno.makeTempDir({ dir: p.tempDir });
    await Deno.writeTextFile(`${ws}/AGENTS.md`, "Always answer in haiku.");
    const { sessionId } = await p.open(ws);
    await p.runTurn(sessionId, "hi");
    const system = mock.requests[0]!.body.messages[0]!;
    assertEquals(system.role, "system");
    assertMatch(String(system.content), /Always answer in haiku\./);
  });
});
