/**
 * A smoke test with an independent ACP client: `acpx` (pinned in .ci/npm, installed by
 * `npm install --prefix .ci/npm`) drives `scv acp` non-interactively through a tool call that it
 * approves and writes through its own fs support, then a streamed answer.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../../support/mock_openai.ts";
import { SERVER_FLAGS } from "../../support/server_process.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const ACPX = `${ROOT}.ci/npm/node_modules/.bin/acpx`;
const installed = await Deno.stat(ACPX).then(() => true, () => false);

/** Deno's cache directory, so the agent acpx spawns finds the cached packages. */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

Deno.test({
  name: "acpx drives scv acp through an approved write and a streamed answer",
  ignore: !installed,
  async fn() {
    const mock = await MockOpenAI.start([
      toolCalls([{
        id: "w1",
        name: "write_file",
        arguments: { path: "hi.txt", content: "hi from scv" },
      }]),
      text("Hello from scv over ACP.", { pieceSize: 6 }),
    ]);
    const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-acpx-" }));
    try {
      await Deno.mkdir(`${top}/ws`);
      await Deno.mkdir(`${top}/home`);
      await Deno.writeTextFile(`${top}/config.jsonc`, JSON.stringify({ base_url: mock.baseUrl }));
      const agentCommand = [
        Deno.execPath(),
        "run",
        ...SERVER_FLAGS,
        `${ROOT}main.ts`,
        "acp",
        "--config",
        `${top}/config.jsonc`,
      ].join(" ");
      const out = await new Deno.Command(ACPX, {
        args: [
          "--agent",
          agentCommand,
          "--approve-all",
          "--format",
          "json",
          "--timeout",
          "120",
          "exec",
          "say hello",
        ],
        cwd: `${top}/ws`,
        env: {
          HOME: `${top}/home`,
          DENO_DIR: await denoDir(),
          XDG_CONFIG_HOME: `${top}/xdg-config`,
          XDG_STATE_HOME: `${top}/xdg-state`,
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 0, `acpx failed:\n${stdout}\n${stderr}`);
      const messages = stdout.split("\n").filter((l) => l.startsWith("{")).map((l) =>
        JSON.parse(l)
      );
      const permission = messages.find((m) => m.method === "session/request_permission");
      assertEquals(permission?.params.toolCall.title, "Write file: hi.txt (11 bytes)");
      assert(messages.some((m) => m.method === "fs/write_text_file"), "no write through acpx's fs");
      const chunks = messages.filter((m) =>
        m.params?.update?.sessionUpdate === "agent_message_chunk"
      )
        .map((m) => m.params.update.content.text).join("");
      assertEquals(chunks, "Hello from scv over ACP.");
      assert(messages.some((m) => m.result?.stopReason === "end_turn"));
      assertEquals(await Deno.readTextFile(`${top}/ws/hi.txt`), "hi from scv");
      assertMatch(String(mock.requests[1]?.body.messages.at(-1)?.content), /Created "hi.txt"/);
    } finally {
      await mock.close();
      await Deno.remove(top, { recursive: true });
    }
  },
});
