/**
 * `write_file` and `edit_file` under a hostile concurrent change: another process flips a
 * directory of the path, or the workspace itself, between a real directory and a symlink to
 * outside while the calls run. Nothing may land outside, whatever the timing: no file, no
 * temporary file, not even an empty directory.
 */
import assert from "node:assert/strict";
import { toolContext, withDirs } from "./support.ts";
import { writeFileTool } from "../../../server/tools/write_file.ts";
import { editFileTool } from "../../../server/tools/edit_file.ts";
import type { ToolResult } from "../../../server/tools/tool.ts";

const CALLS = 1000;
/** Calls in flight at once. */
const BATCH = 50;

/**
 * Starts a Deno process in `dir` running `body` (synchronous file operations, so the flips
 * come as fast as the kernel allows) in a loop until the returned stop is called.
 */
async function flipper(dir: string, body: string): Promise<{ stop: () => Promise<number> }> {
  const code = `let n = 0; Deno.writeTextFileSync("started", ""); ` +
    `Deno.addSignalListener("SIGTERM", () => { Deno.writeTextFileSync("flips", String(n)); ` +
    `Deno.exit(0); }); ` +
    // A macrotask turn now and then, so the SIGTERM listener can run.
    `const loop = () => { for (let i = 0; i < 1000; i++) { ${body}; n++; } setTimeout(loop, 0); }; ` +
    `loop();`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: dir,
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Wait until the loop runs, so the calls race it from the first one.
  for (let i = 0; i < 3000; i++) {
    if (await Deno.lstat(`${dir}/started`).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      const flips = Number(await Deno.readTextFile(`${dir}/flips`).catch(() => "0"));
      await Deno.remove(`${dir}/started`).catch(() => {});
      await Deno.remove(`${dir}/flips`).catch(() => {});
      return flips;
    },
  };
}

/** A statement that ignores the failure of `op`. */
const t = (op: string) => `try { ${op}; } catch {}`;

/**
 * A statement that keeps the current state for a while: half the time not at all (flips as
 * fast as the kernel allows), else up to 20 ms, so that calls get past the tool's own checks
 * in one state, some complete, and others meet the other state while they write.
 */
const dwell =
  "{ const until = performance.now() + (Math.random() < 0.5 ? 0 : Math.random() * 20); " +
  "while (performance.now() < until); }";

/** Every entry below `dir` (files, directories, symlinks; not following symlinks). */
async function entriesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    out.push(p);
    if (e.isDirectory) out.push(...await entriesUnder(p));
  }
  return out;
}

/** Runs `CALLS` calls of `call(i)`, `BATCH` at a time; the number that succeeded. */
async function race(call: (i: number) => Promise<ToolResult>): Promise<number> {
  let written = 0;
  for (let batch = 0; batch < CALLS; batch += BATCH) {
    const results = await Promise.all(
      Array.from({ length: BATCH }, (_, i) => call(batch + i)),
    );
    written += results.filter((r) => r.success).length;
  }
  return written;
}

/** The flip of `ws/sub` between a directory and a symlink to `outside`. */
function subFlip(outside: string): string {
  return t(`Deno.removeSync("sub", { recursive: true })`) + t(`Deno.mkdirSync("sub")`) +
    t(`Deno.removeSync("sub", { recursive: true })`) +
    t(`Deno.symlinkSync(${JSON.stringify(outside)}, "sub")`);
}

/**
 * Checks the outcome of one race: nothing outside, and the race was real (some calls met the
 * symlink and were refused; with `someWrote`, some also got through).
 */
function verdict(outsideEntries: string[], written: number, flips: number, someWrote = false) {
  assert.deepEqual(outsideEntries, [], "something landed outside the workspace");
  assert.ok(flips > 0, "the flipper never flipped");
  assert.ok(written < CALLS, `all ${CALLS} calls succeeded: the flips never met a call`);
  if (someWrote) assert.ok(written > 0, "no call succeeded: the workspace never held still");
}

Deno.test("write_file never lands outside while a directory of the path flips to a symlink (1,000 racing calls)", async () => {
  await withDirs(async (ws, outside) => {
    const flip = await flipper(ws, subFlip(outside));
    let written = 0;
    let flips = 0;
    try {
      written = await race((i) =>
        writeFileTool.run({ path: `sub/x${i}.txt`, content: "payload" }, toolContext(ws))
      );
    } finally {
      flips = await flip.stop();
    }
    verdict(await entriesUnder(outside), written, flips);
  });
});

Deno.test("write_file creating new directories never creates one outside while a parent flips to a symlink (1,000 racing calls)", async () => {
  await withDirs(async (ws, outside) => {
    const flip = await flipper(ws, subFlip(outside));
    let written = 0;
    let flips = 0;
    try {
      written = await race((i) =>
        writeFileTool.run({ path: `sub/new${i}/a/b/c/x.txt`, content: "payload" }, toolContext(ws))
      );
    } finally {
      flips = await flip.stop();
    }
    verdict(await entriesUnder(outside), written, flips);
  });
});

Deno.test("edit_file never lands outside while a directory of the path flips to a symlink (1,000 racing calls)", async () => {
  await withDirs(async (ws, outside) => {
    // The same file on both sides, so an edit that followed the symlink would find its text.
    await Deno.writeTextFile(`${outside}/x.txt`, "old text\n");
    const flip = await flipper(
      ws,
      t(`Deno.removeSync("sub", { recursive: true })`) + t(`Deno.mkdirSync("sub")`) +
        t(`Deno.writeTextFileSync("sub/x.txt", "old text\\n")`) +
        t(`Deno.removeSync("sub", { recursive: true })`) +
        t(`Deno.symlinkSync(${JSON.stringify(outside)}, "sub")`),
    );
    let written = 0;
    let flips = 0;
    try {
      written = await race(() =>
        editFileTool.run(
          { path: "sub/x.txt", old_string: "old", new_string: "new" },
          toolContext(ws),
        )
      );
    } finally {
      flips = await flip.stop();
    }
    assert.equal(
      await Deno.readTextFile(`${outside}/x.txt`),
      "old text\n",
      "the edit landed outside",
    );
    verdict((await entriesUnder(outside)).filter((p) => p !== `${outside}/x.txt`), written, flips);
  });
});

Deno.test("write_file never lands outside while the workspace itself flips to a symlink (1,000 racing calls)", async () => {
  await withDirs(async (ws, outside) => {
    const top = ws.slice(0, ws.lastIndexOf("/"));
    const flip = await flipper(
      top,
      t(`Deno.renameSync("ws", "ws.real")`) +
        t(`Deno.symlinkSync(${JSON.stringify(outside)}, "ws")`) +
        dwell + t(`Deno.removeSync("ws")`) + t(`Deno.renameSync("ws.real", "ws")`) + dwell,
    );
    let written = 0;
    let flips = 0;
    try {
      written = await race((i) =>
        writeFileTool.run({ path: `x${i}.txt`, content: "payload" }, toolContext(ws))
      );
    } finally {
      flips = await flip.stop();
      // Put the workspace back for the cleanup.
      if ((await Deno.lstat(ws).catch(() => undefined))?.isSymlink) await Deno.remove(ws);
      await Deno.rename(`${top}/ws.real`, ws).catch(() => {});
    }
    verdict(await entriesUnder(outside), written, flips, true);
  });
});
