/**
 * Sandbox.warm() (server/sandbox/mod.ts) starts the one-time lookup of prlimit inside the sandbox
 * before the first call needs it, once; a sandbox that is off starts nothing.
 */
import { assertEquals } from "../../support/assert.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { openSandbox } from "../../../server/sandbox/mod.ts";
import type { SandboxBackend } from "../../../server/sandbox/types.ts";

/** A backend that runs everything directly on the host and records each command line it makes. */
function recordingBackend(lines: string[][]): SandboxBackend {
  return {
    name: "recording",
    executable: "sh",
    probe: () => Promise.resolve({ ok: true, detail: "records" }),
    command: (_spec, argv) => {
      lines.push([...argv]);
      return { command: argv[0]!, args: argv.slice(1) };
    },
  };
}

const prlimitLookups = (lines: string[][]) =>
  lines.filter((argv) => argv.includes("/usr/bin/prlimit")).length;

Deno.test("warm() looks prlimit up before the first call, and the call does not again; off starts nothing", async () => {
  const off: string[][] = [];
  const quiet = await openSandbox(
    { ...DEFAULT_CONFIG, sandbox: "off" },
    { backend: recordingBackend(off), cgroups: false },
  );
  quiet.warm();
  assertEquals(off, []);

  const lines: string[][] = [];
  const sandbox = await openSandbox(DEFAULT_CONFIG, {
    backend: recordingBackend(lines),
    cgroups: false,
  });
  assertEquals(sandbox.active, true);
  assertEquals(prlimitLookups(lines), 0, "opening looks nothing up");
  sandbox.warm();
  sandbox.warm();
  assertEquals(prlimitLookups(lines), 1, "warm() started the lookup, once");
  const workspace = await Deno.makeTempDir({ prefix: "scv-warm-" });
  try {
    const prepared = await sandbox.prepare(workspace, ["bash", "-c", "true"]);
    assertEquals(prepared.kind, "sandboxed");
    assertEquals(prlimitLookups(lines), 1, "the call found it done");
  } finally {
    await sandbox.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
