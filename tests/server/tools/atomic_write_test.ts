/**
 * `atomicWrite`'s boundary with scv's own permissions: its helper process has the user's
 * rights, so each case runs the write in a Deno child started with the narrow flags at stake.
 */
import assert from "node:assert/strict";
import { withDirs } from "./support.ts";
import { atomicWrite } from "../../../server/tools/atomic_write.ts";

const MODULE = new URL("../../../server/tools/atomic_write.ts", import.meta.url).href;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

/** What a write in the child did: `ok`, or the error's name and message. */
type Outcome = { ok: true } | { ok: false; name: string; message: string };

/** Runs `atomicWrite(root, absolute, "payload")` in a Deno child with `flags` (and `env`). */
async function writeWith(
  flags: string[],
  root: string,
  absolute: string,
  env?: Record<string, string>,
): Promise<Outcome> {
  const code = `import { atomicWrite } from ${JSON.stringify(MODULE)};
    const [root, absolute] = Deno.args;
    try {
      await atomicWrite(root, absolute, new TextEncoder().encode("payload"));
      console.log(JSON.stringify({ ok: true }));
    } catch (e) {
      console.log(JSON.stringify({ ok: false, name: e.name, message: e.message }));
    }`;
  const dir = await Deno.makeTempDir({ prefix: "scv_atomic_child_" });
  try {
    const script = `${dir}/child.ts`;
    await Deno.writeTextFile(script, code);
    const out = await new Deno.Command(Deno.execPath(), {
      // Local modules load without --allow-read; the write itself needs to read the workspace.
      args: [
        "run",
        "--no-prompt",
        "--config",
        CONFIG,
        "--allow-read",
        ...flags,
        script,
        root,
        absolute,
      ],
      stdout: "piped",
      stderr: "piped",
      ...(env ? { env } : {}),
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    assert.ok(text, new TextDecoder().decode(out.stderr));
    return JSON.parse(text) as Outcome;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Whether bubblewrap can start here (CI installs it); the bwrap case needs it. */
const bwrapWorks = await new Deno.Command("bwrap", {
  args: ["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "true"],
  stdout: "null",
  stderr: "null",
}).output().then((o) => o.success, () => false);

/** Every entry below `dir`, not following symlinks, relative to it. */
async function entries(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/${prefix}`)) {
    const p = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(p);
    if (e.isDirectory) out.push(...await entries(dir, p));
  }
  return out.sort();
}

Deno.test("atomicWrite refuses a file scv may not write although its helper could, and writes nothing", async () => {
  await withDirs(async (ws) => {
    await Deno.mkdir(`${ws}/sub`);
    const r = await writeWith([`--allow-write=${ws}/sub`, "--allow-run=bash"], ws, `${ws}/x.txt`);
    assert.deepEqual(r, {
      ok: false,
      name: "NotCapable",
      message: `Requires write access to "${ws}/x.txt", run again with the --allow-write flag`,
    });
    assert.deepEqual(await entries(ws), ["sub"]);
  });
});

Deno.test("atomicWrite creates no directory above scv's write permission", async () => {
  await withDirs(async (ws) => {
    const r = await writeWith(
      [`--allow-write=${ws}/a/b`, "--allow-run=bash"],
      ws,
      `${ws}/a/b/x.txt`,
    );
    assert.deepEqual(r, {
      ok: false,
      name: "NotCapable",
      message: `Requires write access to "${ws}/a", run again with the --allow-write flag`,
    });
    assert.deepEqual(await entries(ws), []);
  });
});

Deno.test("atomicWrite creates the directories inside scv's write permission", async () => {
  await withDirs(async (ws) => {
    await Deno.mkdir(`${ws}/a`);
    const r = await writeWith(
      [`--allow-write=${ws}/a/b`, "--allow-run=bash"],
      ws,
      `${ws}/a/b/c/x.txt`,
    );
    assert.deepEqual(r, { ok: true });
    assert.equal(await Deno.readTextFile(`${ws}/a/b/c/x.txt`), "payload");
  });
});

Deno.test("atomicWrite without --allow-run names the permission and writes nothing", async () => {
  await withDirs(async (ws) => {
    const r = await writeWith([`--allow-write=${ws}`], ws, `${ws}/x.txt`);
    assert.equal(r.ok, false);
    assert.ok(
      !r.ok && r.name === "NotCapable" && /--allow-run=bash/.test(r.message),
      JSON.stringify(r),
    );
    assert.deepEqual(await entries(ws), []);
  });
});

Deno.test({
  name:
    "atomicWrite with only --allow-run=bwrap writes through the sandbox, leaving no temporary file",
  ignore: !bwrapWorks,
  fn: async () => {
    await withDirs(async (ws) => {
      const r = await writeWith([`--allow-write=${ws}`, "--allow-run=bwrap"], ws, `${ws}/d/x.txt`);
      assert.deepEqual(r, { ok: true });
      assert.equal(await Deno.readTextFile(`${ws}/d/x.txt`), "payload");
      assert.deepEqual(await entries(ws), ["d", "d/x.txt"]);
    });
  },
});

Deno.test({
  name: "atomicWrite through the sandbox refuses a parent that is a symlink to outside",
  ignore: !bwrapWorks,
  fn: async () => {
    await withDirs(async (ws, outside) => {
      await Deno.symlink(outside, `${ws}/sub`);
      const r = await writeWith(
        [`--allow-write=${ws}`, "--allow-run=bwrap"],
        ws,
        `${ws}/sub/x.txt`,
      );
      assert.deepEqual(r, {
        ok: false,
        name: "OutsideWorkspaceError",
        message: `it resolves to "${outside}", outside the workspace "${ws}"`,
      });
      assert.deepEqual(await entries(outside), []);
    });
  },
});

Deno.test("atomicWrite refuses a parent that is a symlink to outside and leaves nothing there", async () => {
  await withDirs(async (ws, outside) => {
    await Deno.symlink(outside, `${ws}/sub`);
    const r = await writeWith(
      [`--allow-write=${ws}`, "--allow-run=bash"],
      ws,
      `${ws}/sub/new/x.txt`,
    );
    assert.deepEqual(r, {
      ok: false,
      name: "OutsideWorkspaceError",
      message: `it resolves to "${outside}", outside the workspace "${ws}"`,
    });
    assert.deepEqual(await entries(outside), []);
  });
});

Deno.test("atomicWrite refuses a symlink to a sibling named like the workspace plus a newline", async () => {
  await withDirs(async (ws) => {
    // The check compares the kernel's answer as text: a dropped trailing newline would let
    // "<top>/ws\n" pass for the workspace "<top>/ws".
    const twin = `${ws}\n`;
    await Deno.mkdir(twin);
    try {
      await Deno.symlink(twin, `${ws}/sub`);
      await assert.rejects(
        atomicWrite(ws, `${ws}/sub/x.txt`, new TextEncoder().encode("payload")),
        (e: Error) => e.name === "OutsideWorkspaceError",
      );
      assert.deepEqual(await entries(twin), []);
    } finally {
      await Deno.remove(twin, { recursive: true });
    }
  });
});

Deno.test("atomicWrite writes below a directory named -, not where bash's cd - would go", async () => {
  await withDirs(async (ws) => {
    await atomicWrite(ws, `${ws}/-/x.txt`, new TextEncoder().encode("payload"));
    assert.deepEqual(await entries(ws), ["-", "-/x.txt"]);
  });
});

Deno.test("atomicWrite keeps an existing file's mode", async () => {
  await withDirs(async (ws) => {
    await Deno.writeTextFile(`${ws}/run.sh`, "old");
    await Deno.chmod(`${ws}/run.sh`, 0o750);
    await atomicWrite(ws, `${ws}/run.sh`, new TextEncoder().encode("new"));
    assert.equal((await Deno.stat(`${ws}/run.sh`)).mode! & 0o7777, 0o750);
    assert.equal(await Deno.readTextFile(`${ws}/run.sh`), "new");
  });
});

Deno.test("atomicWrite with an aborted signal writes nothing", async () => {
  await withDirs(async (ws) => {
    const ac = new AbortController();
    ac.abort(new Error("stopped"));
    await assert.rejects(
      atomicWrite(ws, `${ws}/x.txt`, new TextEncoder().encode("payload"), ac.signal),
      /stopped/,
    );
    assert.deepEqual(await entries(ws), []);
  });
});

Deno.test("atomicWrite with no bash on PATH says so rather than naming a missing file", async () => {
  await withDirs(async (ws) => {
    const empty = await Deno.makeTempDir({ prefix: "scv_no_bash_" });
    try {
      const r = await writeWith(
        [`--allow-write=${ws}`, "--allow-run=bash", "--allow-env"],
        ws,
        `${ws}/x.txt`,
        { PATH: empty },
      );
      assert.ok(
        !r.ok && r.name === "NotCapable" && /that executable on PATH/.test(r.message),
        JSON.stringify(r),
      );
      assert.deepEqual(await entries(ws), []);
    } finally {
      await Deno.remove(empty);
    }
  });
});
