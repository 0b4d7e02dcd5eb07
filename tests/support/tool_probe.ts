/**
 * Runs one built-in tool call in a child Deno process under chosen permission flags, for tests
 * of what a tool says when a permission was not granted.
 *
 * @module
 */
import type { ToolResult } from "../../server/tools/tool.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/**
 * Calls `exportName` (a tool) from `module` (a path relative to the repository root) with `args`
 * in workspace `dir`, in `deno run --no-prompt` with `flags`; resolves with its result.
 */
export async function runToolInChild(
  module: string,
  exportName: string,
  args: Record<string, unknown>,
  dir: string,
  flags: string[],
): Promise<ToolResult> {
  const url = new URL(`../../${module}`, import.meta.url).href;
  const script = `${dir}/probe.ts`;
  await Deno.writeTextFile(
    script,
    `import { ${exportName} } from ${JSON.stringify(url)};
const r = await ${exportName}.run(${JSON.stringify(args)}, {
  cwd: ${JSON.stringify(dir)},
  signal: new AbortController().signal,
  limits: { maxOutputBytes: 1000, timeoutMs: 5000 },
  secretEnv: [],
});
console.log(JSON.stringify(r));
`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--config", CONFIG, ...flags, script],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  if (out.code !== 0) throw new Error(`the probe exited with ${out.code}: ${stderr}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
