/**
 * The write helper's life: one process per workspace for the whole run, a bounded number of
 * them, a fresh one for a workspace replaced under the same path, and none left after scv.
 */
import assert from "node:assert/strict";
import { withDirs, withTempDir } from "./support.ts";
import { atomicWrite } from "../../../server/tools/atomic_write.ts";
import { MAX_HELPERS } from "../../../server/tools/write_helper.ts";

const MODULE = new URL("../../../server/tools/atomic_write.ts", import.meta.url).href;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;
const bytes = (s: string) => new TextEncoder().encode(s);

/** Pids of the write helpers serving `root` (bash's argv ends with "scv-write ROOT"). */
async function helpersOf(root: string): Promise<number[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((line) => line.endsWith(` scv-write ${root}`) && !/\bbwrap\b/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

Deno.test("atomicWrite serves many writes to one workspace from one helper process", async () => {
  await withDirs(async (ws) => {
    await atomicWrite(ws, `${ws}/a.txt`, bytes("one"));
    const first = await helpersOf(ws);
    assert.equal(first.length, 1, "one helper after the first write");
    for (let i = 0; i < 5; i++) await atomicWrite(ws, `${ws}/d/b${i}.txt`, bytes(`b${i}`));
    assert.deepEqual(await helpersOf(ws), first, "the same helper after five more");
    assert.equal(await Deno.readTextFile(`${ws}/d/b4.txt`), "b4");
  });
});

Deno.test("atomicWrite keeps at most MAX_HELPERS helper processes", async () => {
  await withTempDir(async (top) => {
    const roots = Array.from({ length: MAX_HELPERS + 2 }, (_, i) => `${top}/w${i}`);
    for (const root of roots) {
      await Deno.mkdir(root);
      await atomicWrite(root, `${root}/x.txt`, bytes("x"));
    }
    // The oldest were retired: their stdin closed, they exit on their own.
    const alive = async () => (await Promise.all(roots.map(helpersOf))).flat().length;
    let n = await alive();
    for (let i = 0; i < 500 && n > MAX_HELPERS; i++) {
      await new Promise((r) => setTimeout(r, 10));
      n = await alive();
    }
    assert.equal(n, MAX_HELPERS);
    assert.equal((await helpersOf(roots.at(-1)!)).length, 1, "the newest helper runs");
    assert.equal((await helpersOf(roots[0]!)).length, 0, "the oldest helper is gone");
  });
});

Deno.test("atomicWrite writes into a workspace replaced under the same path, not the old one", async () => {
  await withDirs(async (ws, outside) => {
    await atomicWrite(ws, `${ws}/a.txt`, bytes("before"));
    assert.equal((await helpersOf(ws)).length, 1);
    await Deno.rename(ws, `${outside}/old-ws`);
    await Deno.mkdir(ws);
    await atomicWrite(ws, `${ws}/b.txt`, bytes("after"));
    assert.equal(await Deno.readTextFile(`${ws}/b.txt`), "after");
    assert.deepEqual([...Deno.readDirSync(`${outside}/old-ws`)].map((e) => e.name), ["a.txt"]);
  });
});

Deno.test("atomicWrite writes data holding NUL bytes exactly", async () => {
  await withDirs(async (ws) => {
    const data = new Uint8Array([0, 1, 0, 255, 10, 0]);
    await atomicWrite(ws, `${ws}/bin.dat`, data);
    await atomicWrite(ws, `${ws}/after.txt`, bytes("still in step"));
    assert.deepEqual(await Deno.readFile(`${ws}/bin.dat`), data);
    assert.equal(await Deno.readTextFile(`${ws}/after.txt`), "still in step");
  });
});

Deno.test("atomicWrite's helper ends with the scv process that started it", async () => {
  await withDirs(async (ws) => {
    const dir = await Deno.makeTempDir({ prefix: "scv_helper_child_" });
    try {
      const script = `${dir}/child.ts`;
      await Deno.writeTextFile(
        script,
        `import { atomicWrite } from ${JSON.stringify(MODULE)};
        await atomicWrite(Deno.args[0], Deno.args[0] + "/x.txt", new TextEncoder().encode("x"));
        console.log("written");
        // Stay until the test has seen the helper.
        for await (const _ of Deno.stdin.readable) break;`,
      );
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          "--config",
          CONFIG,
          "--allow-read",
          `--allow-write=${ws}`,
          "--allow-run=bash",
          script,
          ws,
        ],
        stdin: "piped",
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      assert.match(new TextDecoder().decode(value), /written/);
      const helpers = await helpersOf(ws);
      assert.equal(helpers.length, 1, "the helper runs while scv does");
      await child.stdin.close();
      reader.releaseLock();
      await child.stdout.cancel();
      assert.equal((await child.status).code, 0);
      let left = await helpersOf(ws);
      for (let i = 0; i < 500 && left.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
        left = await helpersOf(ws);
      }
      assert.deepEqual(left, [], "the helper outlived scv");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
