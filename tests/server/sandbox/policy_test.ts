import assert from "node:assert/strict";
import {
  buildSpec,
  effectiveSandbox,
  helperSpec,
  type PermissionView,
  type SandboxSettings,
  scvBuildDir,
  scvDirectories,
  SYSTEM_READ_DIRS,
} from "../../../server/sandbox/policy.ts";
import { sandboxSettings } from "../../../server/sandbox/mod.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { withTempDir } from "../tools/support.ts";

const all: PermissionView = { canRead: () => true, canWrite: () => true, netUnscoped: () => true };
const noLookup = () => Promise.resolve([]);

function settings(o: Partial<SandboxSettings> = {}): SandboxSettings {
  return { mode: "auto", network: false, writableRoots: [], denyRead: [], scvDirs: [], ...o };
}

Deno.test("a workspace scv may not write makes the sandbox read-only, and says why", () => {
  const e = effectiveSandbox("workspace-write", false, "/w", { ...all, canWrite: () => false });
  assert.equal(e.mode, "read-only");
  assert.match(e.notes[0]!, /--allow-write/);
});

Deno.test("sandbox_network is refused when scv's own --allow-net is scoped", () => {
  assert.equal(effectiveSandbox("workspace-write", true, "/w", all).network, true);
  const e = effectiveSandbox("workspace-write", true, "/w", { ...all, netUnscoped: () => false });
  assert.equal(e.network, false);
  assert.match(e.notes[0]!, /--allow-net is scoped or absent/);
});

Deno.test("a writable root scv may not write stays read-only inside", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/ws`);
    await Deno.mkdir(`${dir}/ok`);
    await Deno.mkdir(`${dir}/denied`);
    const perms = { ...all, canWrite: (p: string) => !p.endsWith("/denied") };
    const spec = await buildSpec(
      settings({ writableRoots: [`${dir}/ok`, `${dir}/denied`, `${dir}/missing`] }),
      `${dir}/ws`,
      perms,
      noLookup,
    );
    assert.deepEqual(spec.writable, [`${dir}/ws`, `${dir}/ok`]);
  });
});

Deno.test(".git/hooks and .git/config of the workspace are read-only, a missing hooks directory made first", async () => {
  await withTempDir(async (ws) => {
    await Deno.mkdir(`${ws}/.git`);
    await Deno.writeTextFile(`${ws}/.git/config`, "");
    const spec = await buildSpec(settings(), ws, all, noLookup);
    assert.deepEqual(spec.readOnly, [`${ws}/.git/hooks`, `${ws}/.git/config`]);
    assert.ok((await Deno.stat(`${ws}/.git/hooks`)).isDirectory);
  });
});

Deno.test("scv's own dist/ inside the workspace is read-only, a missing one made first; one outside is left alone", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/ws/scv`, { recursive: true });
    const inside = await buildSpec(
      settings({ scvBuild: `${dir}/ws/scv/dist` }),
      `${dir}/ws`,
      all,
      noLookup,
    );
    assert.deepEqual(inside.readOnly, [`${dir}/ws/scv/dist`]);
    assert.ok((await Deno.stat(`${dir}/ws/scv/dist`)).isDirectory);
    await Deno.mkdir(`${dir}/elsewhere`);
    const outside = await buildSpec(
      settings({ scvBuild: `${dir}/elsewhere/dist` }),
      `${dir}/ws`,
      all,
      noLookup,
    );
    assert.deepEqual(outside.readOnly, []);
    assert.equal(await Deno.stat(`${dir}/elsewhere/dist`).then(() => true, () => false), false);
  });
});

Deno.test("scv's build directory is dist/ beside a main.ts whose checkout has cli/build_dist.ts, and none elsewhere", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/a b/cli`, { recursive: true });
    const main = new URL(`file://${encodeURI(`${dir}/a b`)}/main.ts`).href;
    assert.equal(scvBuildDir(main), undefined);
    await Deno.writeTextFile(`${dir}/a b/cli/build_dist.ts`, "");
    assert.equal(scvBuildDir(main), `${dir}/a b/dist`);
    assert.equal(scvBuildDir("https://jsr.io/@scv/scv/0.3.0/main.ts"), undefined);
  });
});

Deno.test("hidden paths: existing ones only, never one that holds the workspace, scv's directories included", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/ws`);
    await Deno.mkdir(`${dir}/.ssh`);
    await Deno.writeTextFile(`${dir}/.netrc`, "machine x");
    await Deno.mkdir(`${dir}/state/scv`, { recursive: true });
    const spec = await buildSpec(
      settings({
        denyRead: [`${dir}/.ssh`, `${dir}/.netrc`, `${dir}/.aws`, dir],
        scvDirs: [`${dir}/state/scv`],
      }),
      `${dir}/ws`,
      all,
      noLookup,
    );
    assert.deepEqual(spec.hidden, [
      { path: `${dir}/.ssh`, directory: true },
      { path: `${dir}/.netrc`, directory: false },
      { path: `${dir}/state/scv`, directory: true },
    ]);
  });
});

Deno.test("a hidden path scv may not read itself is looked up through the sandbox, not skipped", async () => {
  await withTempDir(async (ws) => {
    const asked: string[][] = [];
    const spec = await buildSpec(
      settings({ denyRead: ["/secret/.ssh"] }),
      ws,
      { ...all, canRead: (p) => p !== "/secret/.ssh" },
      (paths) => {
        asked.push([...paths]);
        return Promise.resolve([{ path: "/secret/.ssh", directory: true }]);
      },
    );
    assert.deepEqual(asked, [["/secret/.ssh"]]);
    assert.deepEqual(spec.hidden, [{ path: "/secret/.ssh", directory: true }]);
  });
});

Deno.test("scv's config and state directories follow XDG, else ~/.config and ~/.local/state", () => {
  assert.deepEqual(scvDirectories((n) => ({ HOME: "/h" } as Record<string, string>)[n]), [
    "/h/.config/scv",
    "/h/.local/state/scv",
  ]);
  const env: Record<string, string> = { HOME: "/h", XDG_CONFIG_HOME: "/c", XDG_STATE_HOME: "rel" };
  assert.deepEqual(scvDirectories((n) => env[n]), ["/c/scv", "/h/.local/state/scv"]);
});

Deno.test("sandbox settings expand ~ in sandbox_deny_read with HOME", () => {
  const s = sandboxSettings({ ...DEFAULT_CONFIG }, (n) => n === "HOME" ? "/home/u" : undefined);
  assert.deepEqual(
    s.denyRead,
    DEFAULT_CONFIG.sandbox_deny_read.map((p) => `/home/u/${p.slice(2)}`),
  );
  assert.ok(s.denyRead.includes("/home/u/.config/gh") && s.denyRead.includes("/home/u/.kube"));
});

Deno.test("the default sandbox_deny_read names every credential store CONTRACT.md lists", () => {
  for (
    const p of [
      "~/.ssh",
      "~/.gnupg",
      "~/.aws",
      "~/.azure",
      "~/.config/gcloud",
      "~/.config/gh",
      "~/.kube",
      "~/.docker/config.json",
      "~/.netrc",
      "~/.git-credentials",
      "~/.npmrc",
      "~/.pypirc",
      "~/.cargo/credentials.toml",
      "~/.local/share/keyrings",
      "~/.password-store",
      "~/.mozilla",
      "~/.config/google-chrome",
      "~/.config/chromium",
    ]
  ) assert.ok(DEFAULT_CONFIG.sandbox_deny_read.includes(p), p);
});

Deno.test("under a scoped --allow-read only the system directories, the readable roots, the workspace and what scv may read are shown", async () => {
  await withTempDir(async (dir) => {
    for (const d of ["ws", "home", "tool", "cache"]) await Deno.mkdir(`${dir}/${d}`);
    await Deno.mkdir(`${dir}/home/.ssh`);
    const scoped = (readable: string[]): PermissionView => ({
      ...all,
      canRead: (p) => readable.some((r) => p === r || p.startsWith(r + "/")),
      canWrite: (p) => p.startsWith(`${dir}/ws`),
      readUnscoped: () => false,
    });
    const s = settings({
      readableRoots: [`${dir}/tool`],
      writableRoots: [`${dir}/cache`],
      home: `${dir}/home`,
      denyRead: [`${dir}/home/.ssh`],
    });
    const hidden = await buildSpec(s, `${dir}/ws`, scoped([`${dir}/ws`]), noLookup);
    assert.deepEqual(hidden.readable, [...SYSTEM_READ_DIRS, `${dir}/tool`]);
    assert.deepEqual(hidden.writable, [`${dir}/ws`]);
    // HOME is not shown, so ~/.ssh under it needs no cover.
    assert.deepEqual(hidden.hidden, []);
    const withHome = await buildSpec(
      s,
      `${dir}/ws`,
      scoped([`${dir}/ws`, `${dir}/home`]),
      noLookup,
    );
    assert.deepEqual(withHome.readable, [...SYSTEM_READ_DIRS, `${dir}/tool`, `${dir}/home`]);
    assert.deepEqual(withHome.hidden, [{ path: `${dir}/home/.ssh`, directory: true }]);
    const broad = await buildSpec(s, `${dir}/ws`, all, noLookup);
    assert.equal(broad.readable, undefined);
  });
});

Deno.test("a read-only sandbox under a scoped --allow-read still shows the workspace", async () => {
  await withTempDir(async (ws) => {
    const spec = await buildSpec(
      settings({ mode: "read-only" }),
      ws,
      { ...all, readUnscoped: () => false },
      noLookup,
    );
    assert.ok(spec.readable?.includes(ws));
  });
});

Deno.test("helper commands get the whole filesystem read-only, no network, a fresh spec each time", () => {
  const a = helperSpec();
  assert.deepEqual(a, {
    mode: "read-only",
    workspace: "/",
    writable: [],
    readOnly: [],
    hidden: [],
    network: false,
  });
  assert.notEqual(helperSpec(), a);
  assert.notEqual(helperSpec().writable, a.writable);
});
