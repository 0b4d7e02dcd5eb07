/**
 * Checkpoints on a workspace of 10,000 files (100 directories of 100 files, 1 KiB each, a
 * `.gitignore`d `node_modules` beside them): the first snapshot of a fresh shadow repository, a
 * snapshot after a turn changed 3 files, and the cost checkpoints add to a tool turn (the turn's
 * record, its snapshot before the first changing call and its snapshot at the end, with one
 * file written in between). The disk use of the shadow repository is printed once.
 *
 * Run: `deno bench --no-prompt -A bench/checkpoint_bench.ts`
 *
 * @module
 */
import { ShadowRepo, treeBytes } from "../server/checkpoints/repo.ts";
import { SessionCheckpoints } from "../server/checkpoints/session_checkpoints.ts";

const DIRS = 100;
const FILES_PER_DIR = 100;
const LIMITS = { maxFileBytes: 4 * 1024 * 1024, maxBytes: 256 * 1024 * 1024 };

const root = await Deno.makeTempDir({ prefix: "scv-checkpoint-bench-" });
const ws = await Deno.realPath(await Deno.makeTempDir({ dir: root, prefix: "ws-" }));
const line = "export const value = 42; // some source text to make a kilobyte\n";
for (let d = 0; d < DIRS; d++) {
  await Deno.mkdir(`${ws}/src/d${d}`, { recursive: true });
  for (let f = 0; f < FILES_PER_DIR; f++) {
    await Deno.writeTextFile(`${ws}/src/d${d}/f${f}.ts`, `// ${d}/${f}\n` + line.repeat(16));
  }
}
await Deno.writeTextFile(`${ws}/.gitignore`, "node_modules/\n");
await Deno.mkdir(`${ws}/node_modules/pkg`, { recursive: true });
for (let i = 0; i < 1000; i++) await Deno.writeTextFile(`${ws}/node_modules/pkg/${i}.js`, line);

let fresh = 0;
/** A new state directory: the next snapshot is a first one. */
function freshRepo(): { repo: ShadowRepo; index: string } {
  const dir = `${root}/state-${fresh++}`;
  Deno.mkdirSync(`${dir}/index`, { recursive: true });
  // Where a session's index lives, so a later session of the workspace starts from it.
  return { repo: new ShadowRepo(dir, ws), index: `${dir}/index/bench` };
}

// One warm repository for the incremental figures, its first snapshot taken.
const warm = freshRepo();
const t0 = performance.now();
const first = await warm.repo.snapshot(warm.index, LIMITS);
const firstMs = performance.now() - t0;
if (first.kind !== "taken") throw new Error(`first snapshot skipped: ${first.reason}`);
const afterFirst = await treeBytes(warm.repo.root);

let round = 0;
async function changeThree(): Promise<void> {
  round++;
  for (const f of [1, 2, 3]) {
    await Deno.writeTextFile(`${ws}/src/d${f}/f${f}.ts`, `// round ${round}\n` + line);
  }
}

await changeThree();
const t1 = performance.now();
await warm.repo.snapshot(warm.index, LIMITS);
const threeMs = performance.now() - t1;
const afterThree = await treeBytes(warm.repo.root);
console.log(
  `checkpoint bench: 10,000 files, first snapshot ${firstMs.toFixed(0)} ms, ` +
    `3-file snapshot ${threeMs.toFixed(0)} ms; shadow repository ` +
    `${(afterFirst / 1024 / 1024).toFixed(1)} MiB after the first snapshot, ` +
    `+${((afterThree - afterFirst) / 1024).toFixed(1)} KiB after the 3-file one`,
);

Deno.bench("first snapshot of a 10,000-file workspace", { n: 3, warmup: 0 }, async () => {
  const { repo, index } = freshRepo();
  const s = await repo.snapshot(index, LIMITS);
  if (s.kind !== "taken") throw new Error(s.reason);
});

Deno.bench("snapshot after a turn changed 3 of 10,000 files", { n: 10 }, async (b) => {
  await changeThree();
  b.start();
  const s = await warm.repo.snapshot(warm.index, LIMITS);
  b.end();
  if (s.kind !== "taken") throw new Error(s.reason);
});

const cp = new SessionCheckpoints(
  new ShadowRepo(warm.repo.root, ws),
  crypto.randomUUID(),
  LIMITS,
);
let turn = 0;
Deno.bench("checkpoints' cost in a tool turn (10,000 files, 1 written)", { n: 10 }, async (b) => {
  const id = `turn-${turn++}`;
  // The file the tool writes, written before the clock starts: the snapshots see it as
  // changed either way (its stat changed since the last snapshot).
  await Deno.writeTextFile(`${ws}/src/d9/f9.ts`, `// turn ${turn}\n`);
  b.start();
  await cp.turnStarted({ id, prompt: "change one file", start: 0, compacted: 0 });
  await cp.beforeChange(id);
  await cp.turnEnded(id);
  b.end();
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
});
