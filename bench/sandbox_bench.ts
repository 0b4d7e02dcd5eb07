/**
 * What the sandbox costs per bash call: the same `bash` tool call (`true`, in a git workspace)
 * run directly and inside bubblewrap. `deno task bench` runs both as Deno.bench entries in one
 * group (direct as the baseline); `deno run -A bench/sandbox_bench.ts` measures 60 calls of each,
 * interleaved, and prints the medians and the median added time per sandboxed call; and the
 * same for a bare spawn of `bash -c true` with and without bwrap, which isolates bwrap's own
 * set-up from the tool's (a direct call also scans /proc for escaped processes afterwards).
 */
import { createBashTool } from "../server/tools/bash.ts";
import { openSandbox } from "../server/sandbox/mod.ts";
import { DEFAULT_CONFIG } from "../server/config.ts";
import type { ToolContext } from "../server/tools/tool.ts";

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-sbx-bench-" }));
await new Deno.Command("git", { args: ["init", "-q", workspace] }).output();
const sandbox = await openSandbox({ ...DEFAULT_CONFIG });
if (!sandbox.active) {
  console.error("sandbox bench: bubblewrap cannot start here; nothing to measure");
}
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

/** One spawn of `bash -c true`, bare or under the call's bwrap command line: bwrap alone. */
async function spawnOnly(wrapped: boolean): Promise<number> {
  const argv = ["bash", "-c", "true"];
  const prepared = wrapped ? await sandbox.prepare(workspace, argv) : undefined;
  const cmd = prepared?.kind === "sandboxed"
    ? { command: prepared.command, args: prepared.args }
    : { command: "bash", args: argv.slice(1) };
  const t0 = performance.now();
  const out = await new Deno.Command(cmd.command, {
    args: cmd.args,
    stdout: "null",
    stderr: "null",
  })
    .output();
  if (!out.success) throw new Error(`exit ${out.code}`);
  return performance.now() - t0;
}

if (!sandbox.active) {
  // Nothing to compare: no bench is registered.
} else if (import.meta.main) {
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < 60; i++) {
    sa.push(await spawnOnly(false));
    sb.push(await spawnOnly(true));
  }
  console.log(`bare spawn of bash -c true:    median ${median(sa).toFixed(1)} ms`);
  console.log(`the same under bwrap:          median ${median(sb).toFixed(1)} ms`);
  console.log(
    `bwrap adds per spawn:          median ${median(sb.map((x, i) => x - sa[i]!)).toFixed(1)} ms`,
  );
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 5; i++) await call(direct), await call(sandboxed); // warm up
  for (let i = 0; i < 60; i++) {
    a.push(await call(direct));
    b.push(await call(sandboxed));
  }
  const added = median(b.map((x, i) => x - a[i]!));
  // A direct call ends with a /proc scan for escaped processes; a sandboxed one needs none.
  console.log(`bash tool call, direct:        median ${median(a).toFixed(1)} ms`);
  console.log(`bash tool call, sandboxed:     median ${median(b).toFixed(1)} ms`);
  console.log(`sandboxed minus direct:        median ${added.toFixed(1)} ms (60 paired calls)`);
  await Deno.remove(workspace, { recursive: true });
} else {
  Deno.bench("bash call `true`, direct", { group: "sandbox", baseline: true }, async () => {
    await call(direct);
  });
  Deno.bench("bash call `true`, in bubblewrap", { group: "sandbox" }, async () => {
    await call(sandboxed);
  });
}
