/**
 * `write_file` under a hostile concurrent change: another process flips a directory of the
 * path, or the workspace itself, between a real directory and a symlink to outside while the
 * calls run. No write may land outside, whatever the timing.
 */
import assert from "node:assert/strict";
import { toolContext, withDirs } from "./support.ts";
import { writeFileTool } from "../../../server/tools/write_file.ts";

const CALLS = 1000;

/**
 * Starts a Deno process in `dir` running `body` (synchronous file operations, so the flips
 * come as fast as the kernel allows) in a loop until the returned stop is called.
 */
async function flipper(dir: string, body: string): Promise<{ stop: () => Promise<void> }> {
  const code = `Deno.writeTextFileSync("started", ""); for (;;) { ${body} }`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: dir,
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Wait until the loop runs, so the calls race it from the first one.
  for (let i = 0; i < 1000; i++) {
    try {
      await Deno.lstat(`${dir}/started`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return {
    stop: async () => {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

/** A statement that ignores the failure of `op`. */
const t = (op: string) => `try { ${op}; } catch {}`;

/** Every file below `dir` (not following symlinks). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await filesUnder(p));
    else out.push(p);
  }
  return out;
}

Deno.test("write_file never lands outside while a directory of the path flips to a symlink (1,000 racing calls)", async () => {
  await withDirs(async (ws, outside) => {
    const flip = await flipper(
      ws,
      t(`Deno.removeSync("sub", { recursive: true })`) + t(`Deno.mkdirSync("sub")`) +
        t(`Deno.removeSync("sub", { recursive: true })`) +
        t(`Deno.symlinkSync(${JSON.stringify(outside)}, "sub")`),
    );
    let written = 0;
    try {
      for (let batch = 0; batch < CALLS; batch += 50) {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            writeFileTool.run(
              { path: `sub/x${batch + i}.txt`, content: "payload" },
              toolContext(ws),
            )),
        );
        written += results.filter((r) => r.success).length;
      }
    } finally {
      await flip.stop();
    }
    assert.deepEqual(await filesUnder(outside), [], "a write landed outside the workspace");
    // The race was real: some calls met the symlink and were refused.
    assert.ok(written < CALLS, `all ${CALLS} writes succeeded: the flips never met a call`);
  });
});

Deno.test("write_file never lands outside while the workspace itself flips to a symlink (1,000 racing calls)", async () => {
  await withDirs(async (ws, outside) => {
    const top = ws.slice(0, ws.lastIndexOf("/"));
    const flip = await flipper(
      top,
      t(`Deno.renameSync("ws", "ws.real")`) +
        t(`Deno.symlinkSync(${JSON.stringify(outside)}, "ws")`) +
        t(`Deno.removeSync("ws")`) + t(`Deno.renameSync("ws.real", "ws")`),
    );
    let written = 0;
    try {
      for (let batch = 0; batch < CALLS; batch += 50) {
        const results = await Promise.all(
          Array.from(
            { length: 50 },
            (_, i) =>
              writeFileTool.run({ path: `x${batch + i}.txt`, content: "payload" }, toolContext(ws)),
          ),
        );
        written += results.filter((r) => r.success).length;
      }
    } finally {
      await flip.stop();
      // Put the workspace back for the cleanup.
      if ((await Deno.lstat(ws).catch(() => undefined))?.isSymlink) await Deno.remove(ws);
      await Deno.rename(`${top}/ws.real`, ws).catch(() => {});
    }
    assert.deepEqual(await filesUnder(outside), [], "a write landed outside the workspace");
    assert.ok(written < CALLS, `all ${CALLS} writes succeeded: the flips never met a call`);
  });
});
