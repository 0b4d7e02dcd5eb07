/** `scv exec` prints the model's plan (`plan.updated`) on stderr, keeping stdout the answer. */
import { assert, assertEquals } from "../support/assert.ts";
import { MockOpenAI, text, toolCalls } from "../support/mock_openai.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

Deno.test("exec prints each plan.updated on stderr as a checklist, and only the answer on stdout", async () => {
  const mock = await MockOpenAI.start([
    toolCalls([{
      id: "p1",
      name: "update_plan",
      arguments: {
        steps: [{ text: "Read the code", status: "in_progress" }, {
          text: "Fix it",
          status: "pending",
        }],
      },
    }]),
    toolCalls([{
      id: "p2",
      name: "update_plan",
      arguments: {
        steps: [{ text: "Read the code", status: "done" }, { text: "Fix it", status: "done" }],
      },
    }]),
    text("All done."),
  ]);
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...SERVER_FLAGS, MAIN, "exec", "--cwd", dir, "fix it"],
      env: {
        OPENAI_BASE_URL: mock.baseUrl,
        XDG_CONFIG_HOME: dir,
        XDG_STATE_HOME: `${dir}/.state`,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = decoder.decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    assertEquals(decoder.decode(out.stdout), "All done.\n");
    assert(stderr.includes("Plan:\n  [>] Read the code\n  [ ] Fix it\n"), stderr);
    assert(stderr.includes("Plan:\n  [x] Read the code\n  [x] Fix it\n"), stderr);
    // No approval was needed (exec would have denied it and said so).
    assert(!stderr.includes("denied"), stderr);
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});
