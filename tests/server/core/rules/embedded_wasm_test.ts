/**
 * The rules' WebAssembly is embedded as base64 modules (server/core/rules/wasm/): each must hold
 * exactly the file of the npm package deno.json pins, and the parser must load from them under
 * a `--allow-read` that covers neither scv's checkout nor Deno's cache.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { EMBEDDED, packageBytes } from "../../../../server/core/rules/wasm/generate.ts";
import { unpack } from "../../../../server/core/rules/wasm/embedded.ts";

for (const { specifier, module } of EMBEDDED) {
  Deno.test(`${module} embeds npm:${specifier} as the pinned package has it (deno task embed-wasm)`, async () => {
    const url = new URL(`../../../../server/core/rules/wasm/${module}`, import.meta.url);
    const { BASE64 } = await import(url.href) as { BASE64: string };
    const bytes = packageBytes(specifier);
    assert(bytes.length > 100_000, `${specifier}: ${bytes.length} bytes`);
    const embedded = await unpack(BASE64);
    assertEquals(embedded.length, bytes.length);
    assertEquals(
      embedded.every((b: number, i: number) => b === bytes[i]),
      true,
      "the module is up to date",
    );
  });
}

Deno.test("the shell parser loads under a --allow-read scoped to one unrelated directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const probe = `${dir}/probe.ts`;
    const shell = new URL("../../../../server/core/rules/shell_commands.ts", import.meta.url);
    await Deno.writeTextFile(
      probe,
      `import { parseShellTree } from ${JSON.stringify(shell.href)};\n` +
        `const p = await parseShellTree("echo 'a b' | wc -l");\n` +
        `console.log(JSON.stringify(p.commands.map((c) => c.words)));\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        new URL("../../../../deno.json", import.meta.url).pathname,
        `--allow-read=${dir}`,
        probe,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    assertEquals(
      new TextDecoder().decode(out.stdout).trim(),
      JSON.stringify([["echo", "a b"], [
        "wc",
        "-l",
      ]]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
