import assert from "node:assert/strict";
import { probeOnce } from "../../../server/sandbox/probe.ts";
import type { SandboxBackend } from "../../../server/sandbox/types.ts";

function backend(probe: () => Promise<never> | Promise<{ ok: true; detail: string }>) {
  let runs = 0;
  const b: SandboxBackend = {
    name: "test",
    executable: "test",
    command: () => ({ command: "test", args: [] }),
    probe: () => {
      runs++;
      return probe();
    },
  };
  return { b, runs: () => runs };
}

Deno.test("the probe runs once per process however often it is asked", async () => {
  const { b, runs } = backend(() => Promise.resolve({ ok: true, detail: "fine" }));
  const all = await Promise.all([probeOnce(b), probeOnce(b), probeOnce(b)]);
  assert.equal(runs(), 1);
  assert.ok(all.every((r) => r.ok));
});

Deno.test("a probe that throws is cached as not working, with its reason", async () => {
  const { b, runs } = backend(() => Promise.reject(new Error("boom")));
  const r1 = await probeOnce(b);
  const r2 = await probeOnce(b);
  assert.equal(runs(), 1);
  assert.equal(r1.ok, false);
  assert.ok(!r1.ok && r1.reason.includes("boom"));
  assert.equal(r1, r2);
});
