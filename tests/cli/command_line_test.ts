/**
 * The command line: version, help for every command, usage errors.
 */
import { assertEquals, assertMatch } from "../support/assert.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function scv(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-read", "--allow-env", MAIN, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("scv --version prints scv 0.3.0", async () => {
  for (const flag of ["--version", "-V"]) {
    const r = await scv(flag);
    assertEquals([r.code, r.stdout], [0, "scv 0.3.0\n"]);
  }
});

Deno.test("deno.json's version is the one scv reports", async () => {
  const { SCV_VERSION } = await import("../../protocol/constants.ts");
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assertEquals(config.version, SCV_VERSION);
});

Deno.test("scv --help lists the commands, the environment and examples", async () => {
  const r = await scv("--help");
  assertEquals(r.code, 0);
  for (const word of ["tui", "server", "exec", "OPENAI_API_KEY", "OPENAI_BASE_URL", "SCV_CONFIG"]) {
    assertMatch(r.stdout, new RegExp(word));
  }
});

Deno.test("every subcommand's help lists its flags", async () => {
  const expected: Record<string, string[]> = {
    tui: ["--config", "--model", "--approval-policy", "--cwd", "--server-command"],
    server: ["--config", "--model", "--approval-policy", "Exit 0"],
    exec: ["--config", "--model", "--approval-policy", "--cwd", "--json", "130"],
  };
  for (const [cmd, words] of Object.entries(expected)) {
    const r = await scv(cmd, "--help");
    assertEquals(r.code, 0, cmd);
    for (const w of words) assertMatch(r.stdout, new RegExp(w), `${cmd} --help mentions ${w}`);
  }
});

Deno.test("an unknown command is a usage error naming it", async () => {
  const r = await scv("bogus");
  assertEquals(r.code, 2);
  assertMatch(r.stderr, /unknown command "bogus"/);
});

Deno.test("a bad --approval-policy is a usage error listing the choices", async () => {
  const r = await scv("server", "--approval-policy", "sometimes");
  assertEquals(r.code, 2);
  assertMatch(r.stderr, /always.*on-risk.*never/);
});

Deno.test("exec without a prompt is a usage error", async () => {
  const r = await scv("exec");
  assertEquals(r.code, 2);
  assertMatch(r.stderr, /prompt/);
});

Deno.test("the tests run the server with exactly the flags of deno task server", async () => {
  const { SERVER_FLAGS } = await import("../support/server_process.ts");
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const task: string = config.tasks.server;
  assertEquals(task, `deno run ${SERVER_FLAGS.join(" ")} main.ts server`);
  for (const name of ["server", "start", "exec", "compile"]) {
    const t: string = config.tasks[name];
    assertMatch(t, /--no-prompt/, `${name} runs with --no-prompt`);
    // A small young generation, and V8 sized for memory rather than speed, keep a long
    // session's memory flat (README "Performance").
    assertMatch(
      t,
      / --v8-flags=--max-semi-space-size=2,--optimize-for-size /,
      `${name} runs with a 2 MB young generation, optimized for size`,
    );
    assertEquals(/(^| )-A( |$)|--allow-all/.test(t), false, `${name} does not use -A`);
  }
});
