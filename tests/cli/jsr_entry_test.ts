/**
 * The published package starts scv: `deno.json`'s default export is the command line, and the
 * README's `deno run … jsr:@scv/scv` line, with `jsr:@scv/scv` replaced by that export's file,
 * runs it from a directory that has no config of its own, as a registry install would.
 */
import assert from "node:assert/strict";
import { MockOpenAI, text } from "../support/mock_openai.ts";

const ROOT = new URL("../../", import.meta.url);
const README = new URL("README.md", ROOT);
const CONFIG = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))) as {
  exports: Record<string, string>;
  version: string;
};

/** The flags of the README's `deno run … jsr:@scv/scv` line (continuation lines joined). */
function readmeRunFlags(): string[] {
  const readme = Deno.readTextFileSync(README).replaceAll("\\\n", " ");
  const line = readme.split("\n").find((l) => /^deno run .*jsr:@scv\/scv/.test(l));
  assert.ok(line, "the README has a `deno run ... jsr:@scv/scv` line");
  const words = line.split(/\s+/);
  return words.slice(2, words.indexOf("jsr:@scv/scv"));
}

/** Runs the package's default export by path with the README's flags, from an empty directory. */
async function runEntry(args: string[], env: Record<string, string> = {}) {
  const cwd = await Deno.makeTempDir({ prefix: "scv_jsr_entry_" });
  try {
    const entry = new URL(CONFIG.exports["."]!, ROOT).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...readmeRunFlags(), entry, ...args],
      cwd,
      env: { XDG_CONFIG_HOME: `${cwd}/.config`, XDG_STATE_HOME: `${cwd}/.state`, ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

Deno.test("deno.json's default export is the command line and ./mod the library", () => {
  assert.deepEqual(CONFIG.exports, { ".": "./main.ts", "./mod": "./mod.ts" });
});

Deno.test("the package's default export, run with the README's jsr flags, prints scv's version", async () => {
  const r = await runEntry(["--version"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^scv \d+\.\d+\.\d+/);
});

Deno.test("the package's default export, run with the README's jsr flags, runs a turn with scv exec", async () => {
  const mock = await MockOpenAI.start([text("hello from the entry")]);
  try {
    const r = await runEntry(["exec", "say hello"], { OPENAI_BASE_URL: mock.baseUrl });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hello from the entry/);
    assert.equal(mock.requests.length, 1);
  } finally {
    await mock.close();
  }
});
