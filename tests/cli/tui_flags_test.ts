/**
 * The TUI's session flags as the command line parses them (in-process: no TUI is started).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { parseCommandLine } from "../../cli/command_line.ts";

async function session(...args: string[]) {
  const r = await parseCommandLine(args);
  assert(r.kind === "tui", `not the TUI: ${JSON.stringify(r)}`);
  return r.options.session;
}

Deno.test("scv alone opens a new session", async () => {
  assertEquals(await session(), { kind: "new" });
});

Deno.test("scv -c and --continue resume the newest session of the directory", async () => {
  assertEquals(await session("-c"), { kind: "resume", resume: "last" });
  assertEquals(await session("tui", "--continue"), { kind: "resume", resume: "last" });
});

Deno.test("scv --resume ID resumes that session and --resume alone opens the picker", async () => {
  assertEquals(await session("--resume", "3f2a"), { kind: "resume", resume: "3f2a" });
  assertEquals(await session("--resume"), { kind: "pick" });
});

Deno.test("scv -c with --resume is a usage error", async () => {
  const errors: string[] = [];
  const write = Deno.stderr.writeSync;
  Deno.stderr.writeSync = (b: Uint8Array) => (errors.push(new TextDecoder().decode(b)), b.length);
  try {
    assertEquals(await parseCommandLine(["-c", "--resume", "x"]), { kind: "exit", status: 2 });
    assertEquals(await parseCommandLine(["--resume", " "]), { kind: "exit", status: 2 });
  } finally {
    Deno.stderr.writeSync = write;
  }
  assert(errors.join("").includes("cannot be used with option"), errors.join(""));
  assert(errors.join("").includes("a session id cannot be empty"), errors.join(""));
});
