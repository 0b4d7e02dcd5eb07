import assert from "node:assert/strict";
import {
  buildSpec,
  effectiveSandbox,
  helperSpec,
  type PermissionView,
  type SandboxSettings,
  scvDirectories,
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
  assert.deepEqual(s.denyRead, [
    "/home/u/.ssh",
    "/home/u/.gnupg",
    "/home/u/.aws",
    "/home/u/.config/gcloud",
    "/home/u/.netrc",
  ]);
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
