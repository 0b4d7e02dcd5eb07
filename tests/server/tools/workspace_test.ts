import assert from "node:assert/strict";
import { withDirs } from "./support.ts";
import {
  displayPath,
  isInside,
  locate,
  openedInside,
  physicalPath,
  readRisk,
  writeTarget,
} from "../../../server/tools/workspace.ts";
import { atomicWrite, OutsideWorkspaceError } from "../../../server/tools/atomic_write.ts";

Deno.test("isInside accepts the root and its descendants only", () => {
  assert.ok(isInside("/ws", "/ws"));
  assert.ok(isInside("/ws", "/ws/a/b"));
  assert.ok(!isInside("/ws", "/wsx/a"));
  assert.ok(!isInside("/ws", "/"));
  assert.ok(isInside("/", "/anything"));
});

Deno.test("locate keeps a relative path inside the workspace", async () => {
  await withDirs(async (ws) => {
    const l = await locate(ws, "src/new/file.ts");
    assert.deepEqual(l, { root: ws, absolute: `${ws}/src/new/file.ts`, inside: true });
  });
});

Deno.test("locate sees ../ as outside the workspace", async () => {
  await withDirs(async (ws, outside) => {
    const l = await locate(ws, "../outside/x.txt");
    assert.equal(l.absolute, `${outside}/x.txt`);
    assert.equal(l.inside, false);
  });
});

Deno.test("locate sees an absolute path elsewhere as outside", async () => {
  await withDirs(async (ws, outside) => {
    assert.equal((await locate(ws, `${outside}/x`)).inside, false);
    assert.equal((await locate(ws, `${ws}/x`)).inside, true);
  });
});

Deno.test("locate follows a symlink that points outside", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${outside}/secret.txt`, "s");
    await Deno.symlink(`${outside}/secret.txt`, `${ws}/link.txt`);
    const l = await locate(ws, "link.txt");
    assert.equal(l.absolute, `${outside}/secret.txt`);
    assert.equal(l.inside, false);
  });
});

Deno.test("locate follows a dangling symlink to where a write would land", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(`${outside}/not-yet.txt`, `${ws}/dangling`);
    const l = await locate(ws, "dangling");
    assert.equal(l.absolute, `${outside}/not-yet.txt`);
    assert.equal(l.inside, false);
  });
});

Deno.test("locate resolves .. after a symlinked directory physically", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.mkdir(`${outside}/deep`);
    await Deno.symlink(`${outside}/deep`, `${ws}/d`);
    // The kernel resolves d first, so d/../x is next to deep, outside the workspace.
    const l = await locate(ws, "d/../x.txt");
    assert.equal(l.absolute, `${outside}/x.txt`);
    assert.equal(l.inside, false);
  });
});

Deno.test("physicalPath resolves a symlinked workspace itself", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(ws, `${outside}/alias`);
    assert.equal(await physicalPath(`${outside}/alias/a/b`), `${ws}/a/b`);
    assert.equal((await locate(`${outside}/alias`, "a")).inside, true);
  });
});

Deno.test("readRisk is read inside the workspace and write outside it", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(outside, `${ws}/out`);
    assert.equal(await readRisk(ws, "a.txt"), "read");
    assert.equal(await readRisk(ws, "../outside/a.txt"), "write");
    assert.equal(await readRisk(ws, "/etc/passwd"), "write");
    assert.equal(await readRisk(ws, "out/a.txt"), "write");
  });
});

Deno.test("displayPath is relative inside the workspace and absolute outside", () => {
  assert.equal(displayPath("/ws", "/ws/a/b.ts"), "a/b.ts");
  assert.equal(displayPath("/ws", "/ws"), ".");
  assert.equal(displayPath("/ws", "/other/b.ts"), "/other/b.ts");
});

Deno.test("writeTarget refuses a path outside the workspace with its real location", async () => {
  await withDirs(async (ws, outside) => {
    const t = await writeTarget(ws, "../outside/x.txt", "write");
    assert.deepEqual(t, {
      ok: false,
      message: `Cannot write "../outside/x.txt": it resolves to "${outside}/x.txt", outside ` +
        `the workspace "${ws}"; write tools may only change files inside it`,
    });
  });
});

Deno.test("writeTarget refuses the workspace directory itself", async () => {
  await withDirs(async (ws) => {
    const t = await writeTarget(ws, ".", "write");
    assert.equal(t.ok, false);
  });
});

Deno.test("atomicWrite re-checks a parent that became a symlink to outside", async () => {
  await withDirs(async (ws, outside) => {
    // Resolved while `sub` did not exist; then `sub` appears as a symlink pointing outside.
    const target = `${ws}/sub/x.txt`;
    await Deno.symlink(outside, `${ws}/sub`);
    await assert.rejects(
      atomicWrite(ws, target, new TextEncoder().encode("x")),
      OutsideWorkspaceError,
    );
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  });
});

Deno.test("atomicWrite replaces a file and leaves no temporary file behind", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/a.txt`, "old");
    await atomicWrite(ws, `${ws}/a.txt`, new TextEncoder().encode("new"));
    assert.equal(await Deno.readTextFile(`${ws}/a.txt`), "new");
    assert.deepEqual([...Deno.readDirSync(ws)].map((e) => e.name), ["a.txt"]);
  });
});

Deno.test("atomicWrite keeps an existing file's permissions", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/run.sh`, "#!/bin/sh\n");
    await Deno.chmod(`${ws}/run.sh`, 0o755);
    await atomicWrite(ws, `${ws}/run.sh`, new TextEncoder().encode("#!/bin/sh\necho\n"));
    assert.equal((await Deno.stat(`${ws}/run.sh`)).mode! & 0o777, 0o755);
  });
});

Deno.test("atomicWrite leaves no temporary file behind when the rename fails", async () => {
  await withDirs(async (ws) => {
    await Deno.mkdir(`${ws}/dir`);
    await assert.rejects(atomicWrite(ws, `${ws}/dir`, new TextEncoder().encode("x")));
    assert.deepEqual([...Deno.readDirSync(ws)].map((e) => e.name), ["dir"]);
    assert.deepEqual([...Deno.readDirSync(`${ws}/dir`)], []);
  });
});

Deno.test("locate resolves a symlink after .. out of a missing directory", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${outside}/secret.txt`, "s");
    await Deno.symlink(outside, `${ws}/link`);
    // `newdir` does not exist; once past it, `link` must still be followed.
    const l = await locate(ws, "newdir/../link/secret.txt");
    assert.equal(l.absolute, `${outside}/secret.txt`);
    assert.equal(l.inside, false);
    assert.equal(await readRisk(ws, "newdir/../link/secret.txt"), "write");
    assert.equal(await readRisk(ws, "a/b/../../link/secret.txt"), "write");
    const w = await writeTarget(ws, "newdir/../link/new.txt", "write");
    assert.equal(w.ok, false);
  });
});

Deno.test("locate keeps missing components and drops them again on ..", async () => {
  await withDirs(async (ws) => {
    assert.equal((await locate(ws, "a/b/../c.txt")).absolute, `${ws}/a/c.txt`);
    assert.equal((await locate(ws, "a/../../ws/x")).absolute, `${ws}/x`);
    assert.equal((await locate(ws, "a/../..")).inside, false);
  });
});

Deno.test("openedInside rejects a file swapped for a symlink to outside after the open", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.writeTextFile(`${ws}/a.txt`, "inside");
    await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
    using inner = await Deno.open(`${ws}/a.txt`);
    assert.equal(await openedInside(ws, `${ws}/a.txt`, inner), true);
    await Deno.remove(`${ws}/a.txt`);
    await Deno.symlink(`${outside}/secret.txt`, `${ws}/a.txt`);
    assert.equal(await openedInside(ws, `${ws}/a.txt`, inner), false);
    // Opening through the symlink reaches a file outside.
    using outer = await Deno.open(`${ws}/a.txt`);
    assert.equal(await openedInside(ws, `${ws}/a.txt`, outer), false);
  });
});

Deno.test("atomicWrite refused outside creates no directory there", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(outside, `${ws}/link`);
    // Judged inside by its text; `link` leads outside, so nothing may be made below it.
    await assert.rejects(
      atomicWrite(ws, `${ws}/link/a/b/x.txt`, new TextEncoder().encode("x")),
      OutsideWorkspaceError,
    );
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  });
});

Deno.test("atomicWrite creates missing directories one by one inside the workspace", async () => {
  await withDirs(async (ws) => {
    await atomicWrite(ws, `${ws}/a/b/c/x.txt`, new TextEncoder().encode("x"));
    assert.equal(await Deno.readTextFile(`${ws}/a/b/c/x.txt`), "x");
    assert.deepEqual([...Deno.readDirSync(`${ws}/a/b/c`)].map((e) => e.name), ["x.txt"]);
  });
});

Deno.test("atomicWrite writes a file whose name is 250 characters long", async () => {
  await withDirs(async (ws) => {
    const name = "n".repeat(246) + ".txt";
    assert.equal(name.length, 250);
    await atomicWrite(ws, `${ws}/${name}`, new TextEncoder().encode("long"));
    assert.equal(await Deno.readTextFile(`${ws}/${name}`), "long");
    assert.deepEqual([...Deno.readDirSync(ws)].map((e) => e.name), [name]);
  });
});
