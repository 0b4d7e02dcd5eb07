import assert from "node:assert/strict";
import { denialHint } from "../../../server/sandbox/hint.ts";
import type { SandboxSpec } from "../../../server/sandbox/types.ts";

const spec: SandboxSpec = {
  mode: "workspace-write",
  workspace: "/w",
  writable: ["/w"],
  readOnly: ["/w/.git/hooks"],
  hidden: [{ path: "/h/.ssh", directory: true }, { path: "/h/.config/scv", directory: true }],
  network: false,
};
const ctx = { networkAsked: false, scvDirs: ["/h/.config/scv"] };

Deno.test("a write outside the workspace names sandbox_writable_roots", () => {
  const h = denialHint("touch: cannot touch '/etc/x': Read-only file system", spec, ctx);
  assert.match(h!, /^\[sandbox: .*"sandbox_writable_roots".*\]$/);
});

Deno.test("a write to .git/hooks names the git rule", () => {
  const h = denialHint("bash: .git/hooks/pre-commit: Read-only file system", spec, ctx);
  assert.match(h!, /\.git\/hooks and \.git\/config are read-only/);
});

Deno.test("a write to scv's own dist/ names that rule, and only where that dist/ is read-only", () => {
  const own = { ...spec, readOnly: [...spec.readOnly, "/w/dist"] };
  const relative = "bash: dist/b1/server/server.js: Read-only file system";
  assert.match(denialHint(relative, own, ctx)!, /scv's own build \(its dist\/ directory\)/);
  const absolute = "cp: cannot create regular file '/w/dist/x.js': Read-only file system";
  assert.match(denialHint(absolute, own, ctx)!, /scv's own build/);
  // A workspace whose dist/ is its own (not scv's) is the ordinary rule.
  assert.doesNotMatch(denialHint(relative, spec, ctx) ?? "", /scv's own build/);
});

Deno.test("a read-only sandbox names the sandbox key and workspace-write", () => {
  const h = denialHint("Read-only file system", { ...spec, mode: "read-only" }, ctx);
  assert.match(h!, /"sandbox": "workspace-write"/);
});

Deno.test("no network names sandbox_network, or scv's --allow-net when network was asked", () => {
  const out = "curl: (6) Could not resolve host: example.com";
  assert.match(denialHint(out, spec, ctx)!, /"sandbox_network": true/);
  assert.match(denialHint(out, spec, { ...ctx, networkAsked: true })!, /--allow-net/);
  assert.equal(denialHint(out, { ...spec, network: true }, ctx), undefined);
});

Deno.test("a hidden path in the output names sandbox_deny_read, or says scv's directories always are", () => {
  assert.match(
    denialHint("cat: /h/.ssh/id_rsa: No such file or directory", spec, ctx)!,
    /"\/h\/\.ssh" is hidden .*"sandbox_deny_read"/,
  );
  assert.match(
    denialHint("ls: /h/.config/scv/x: No such file", spec, ctx)!,
    /scv's own config and state directories always are/,
  );
});

Deno.test("an ordinary failure gets no sandbox hint", () => {
  assert.equal(denialHint("error: test failed\n1 failed", spec, ctx), undefined);
});

Deno.test("a missing path outside what scoped reads show names sandbox_readable_roots", () => {
  const scoped = { ...spec, readable: ["/usr", "/etc"] };
  const hint = denialHint("cat: /home/u/notes.txt: No such file or directory", scoped, ctx);
  assert.match(hint ?? "", /"\/home\/u\/notes\.txt" is not shown .*"sandbox_readable_roots"/);
  assert.equal(denialHint("cat: /usr/nope: No such file or directory", scoped, ctx), undefined);
  assert.equal(denialHint("cat: /home/u/x: No such file or directory", spec, ctx), undefined);
});
