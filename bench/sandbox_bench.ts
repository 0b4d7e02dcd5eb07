/**
 * What the sandbox costs per bash call: the same `bash` tool call (`true`, in a git workspace)
 * run directly and inside bubblewrap. `deno task bench` runs both as Deno.bench entries in one
 * group (direct as the baseline); `deno run -A bench/sandbox_bench.ts` measures 60 calls of each,
 * interleaved, and prints the medians and the median added time per sandboxed call.
 */
import { createBashTool } from "../server/tools/bash.ts";
import { openSandbox } from "../server/sandbox/mod.ts";
import { DEFAULT_CONFIG } from "../server/config.ts";
import type { ToolContext } from "../server/tools/tool.ts";

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-sbx-bench-" }));
await new Deno.Command("git", { args: ["init", "-q", workspace] }).output();
const sandbox = await openSandbox({ ...DEFAULT_CONFIG });
if (!sandbox.active) throw new Error(`the sandbox does not work here: ${sandbox.probe?.ok}`);
const direct = createBashTool();
const sandboxed = createBashTool({ sandbox });
const ctx: ToolContext = {
  cwd: workspace,
  signal: new AbortController().signal,
  limits: { maxOutputBytes: 65536, timeoutMs: 30_000 },
  secretEnv: ["OPENAI_API_KEY"],
};

async function call(tool: typeof direct): Promise<number> {
  const t0 = performance.now();
  const r = await tool.run({ command: "true" }, ctx);
  if (!r.success) throw new Error(r.output);
  return performance.now() - t0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

if (import.meta.main) {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 5; i++) await call(direct), await call(sandboxed); // warm up
  for (let i = 0; i < 60; i++) {
    a.push(await call(direct));
    b.push(await call(sandboxed));
  }
  const added = median(b.map((x, i) => x - a[i]!));
  console.log(`direct bash call:     median ${median(a).toFixed(1)} ms`);
  console.log(`sandboxed bash call:  median ${median(b).toFixed(1)} ms`);
  console.log(`added per call:       median ${added.toFixed(1)} ms (of 60 paired calls)`);
  await Deno.remove(workspace, { recursive: true });
} else {
  Deno.bench("bash call `true`, direct", { group: "sandbox", baseline: true }, async () => {
    await call(direct);
  });
  Deno.bench("bash call `true`, in bubblewrap", { group: "sandbox" }, async () => {
    await call(sandboxed);
  });
}
