import assert from "node:assert/strict";
import { bwrapArgs } from "../../../server/sandbox/bwrap.ts";
import type { SandboxSpec } from "../../../server/sandbox/types.ts";

const base: SandboxSpec = {
  mode: "workspace-write",
  workspace: "/tmp/ws",
  writable: ["/tmp/ws"],
  readOnly: ["/tmp/ws/.git/hooks"],
  hidden: [{ path: "/home/u/.ssh", directory: true }, { path: "/home/u/.netrc", directory: false }],
  network: false,
};

Deno.test("bwrap binds the root read-only, then a private /tmp, then the workspace on top", () => {
  const a = bwrapArgs(base, ["true"]).join(" ");
  assert.ok(a.startsWith("--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp "));
  // A workspace under /tmp must be bound after the tmpfs, or the tmpfs would hide it.
  assert.ok(a.indexOf("--tmpfs /tmp") < a.indexOf("--bind /tmp/ws /tmp/ws"));
  assert.ok(a.indexOf("--bind /tmp/ws /tmp/ws") < a.indexOf("--ro-bind /tmp/ws/.git/hooks"));
});

Deno.test("bwrap hides a directory with an empty read-only tmpfs and a file with /dev/null", () => {
  const a = bwrapArgs(base, ["true"]).join(" ");
  assert.ok(a.includes("--tmpfs /home/u/.ssh --remount-ro /home/u/.ssh"));
  assert.ok(a.includes("--ro-bind /dev/null /home/u/.netrc"));
});

Deno.test("bwrap unshares the network only when the spec has none, and always the PID namespace", () => {
  const off = bwrapArgs(base, ["true"]);
  const on = bwrapArgs({ ...base, network: true }, ["true"]);
  assert.ok(off.includes("--unshare-net") && !on.includes("--unshare-net"));
  for (const a of [off, on]) {
    for (const f of ["--unshare-pid", "--die-with-parent", "--new-session"]) {
      assert.ok(a.includes(f));
    }
  }
});

Deno.test("bwrap in read-only mode binds nothing writable and ends with the command after --", () => {
  const a = bwrapArgs({ ...base, mode: "read-only" }, ["bash", "-c", "x"]);
  assert.ok(!a.includes("--bind"));
  assert.deepEqual(a.slice(-5), ["--chdir", "/tmp/ws", "--", "bash", "-c", "x"].slice(-5));
  assert.equal(a[a.indexOf("--") + 1], "bash");
});

Deno.test("bwrap mounts deeper writable roots after shallower ones", () => {
  const a = bwrapArgs({ ...base, writable: ["/a/b/c", "/a"] }, ["true"]).join(" ");
  assert.ok(a.indexOf("--bind /a /a") < a.indexOf("--bind /a/b/c /a/b/c"));
});

Deno.test("bwrap under scoped reads binds only the readable directories, the writable ones on top, and a read-only root", () => {
  const a = bwrapArgs({ ...base, readable: ["/usr", "/etc", "/home/u/.nvm"] }, ["true"]).join(" ");
  assert.ok(!a.includes("--ro-bind / /"), a);
  assert.ok(a.startsWith("--dev /dev --proc /proc --tmpfs /tmp "), a);
  assert.ok(a.includes("--ro-bind-try /usr /usr") && a.includes("--ro-bind-try /home/u/.nvm"));
  assert.ok(a.indexOf("--ro-bind-try /usr /usr") < a.indexOf("--bind /tmp/ws /tmp/ws"));
  assert.ok(a.indexOf("--bind /tmp/ws /tmp/ws") < a.indexOf("--ro-bind-try /home/u/.nvm"));
  assert.ok(a.includes("--remount-ro / "), a);
});
