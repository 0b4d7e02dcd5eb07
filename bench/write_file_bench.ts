/**
 * What a `write_file` call costs: a new file, an overwrite, and a new file three new
 * directories deep, through the tool as a session calls it. The write runs in a helper process
 * kept for the run (see server/tools/write_helper.ts), bash when scv may run bash, else bwrap:
 * `deno run --no-prompt --allow-read --allow-write --allow-env --allow-run=bash bench/write_file_bench.ts`
 * (or `--allow-run=bwrap`) prints the median of 100 calls of each; `deno task bench` runs
 * them as Deno.bench entries.
 */
import { writeFileTool } from "../server/tools/write_file.ts";
import type { ToolContext } from "../server/tools/tool.ts";

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-write-bench-" }));
const ctx: ToolContext = {
  cwd: workspace,
  signal: new AbortController().signal,
  limits: { maxOutputBytes: 65536, timeoutMs: 30_000 },
  secretEnv: [],
};
const content = "export const x = 1;\n".repeat(100); // 2 KB, a typical source file
let n = 0;

/** The wall time of one write of `path`, in ms. */
async function call(path: string): Promise<number> {
  const t0 = performance.now();
  const r = await writeFileTool.run({ path, content }, ctx);
  if (!r.success) throw new Error(r.output);
  return performance.now() - t0;
}

const cases: Record<string, () => Promise<number>> = {
  "new file": () => call(`new${n++}.txt`),
  "overwrite": () => call("same.txt"),
  "new file 3 new directories deep": () => call(`d${n++}/a/b/x.txt`),
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

if (import.meta.main) {
  for (const [name, run] of Object.entries(cases)) {
    for (let i = 0; i < 5; i++) await run(); // warm up
    const times: number[] = [];
    for (let i = 0; i < 100; i++) times.push(await run());
    console.log(`write_file, ${name}: median ${median(times).toFixed(2)} ms (100 calls)`);
  }
  // Wall medians follow the machine's load: say what it was (needs --allow-sys).
  const load = Deno.permissions.querySync({ name: "sys", kind: "loadavg" }).state === "granted"
    ? Deno.loadavg().map((x) => x.toFixed(1)).join(" ")
    : "unknown (no --allow-sys)";
  console.log(`load average: ${load}`);
  await Deno.remove(workspace, { recursive: true });
} else {
  for (const [name, run] of Object.entries(cases)) {
    Deno.bench(`write_file, ${name}`, { group: "write_file" }, async () => {
      await run();
    });
  }
}
