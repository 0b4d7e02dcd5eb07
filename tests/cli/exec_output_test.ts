/**
 * `scv exec`'s stdout coalescing (cli/exec.ts): a text after a quiet spell goes out at once, a
 * flood is batched per event-loop task, a batch never grows past 64 KiB, and stderr keeps its
 * order after what stdout holds.
 */
import assert from "node:assert/strict";
import { coalesced, QUIET_MS } from "../../cli/exec.ts";
import { sleep } from "../../server/timer.ts";

function recorder() {
  const writes: string[] = [];
  let clock = 1000;
  const io = coalesced({
    stdout: (t) => writes.push(`out:${t}`),
    stderr: (t) => writes.push(`err:${t}`),
  }, () => clock);
  return { writes, io, advance: (ms: number) => (clock += ms) };
}

Deno.test("exec writes the first text at once and batches what follows within the task", async () => {
  const { writes, io } = recorder();
  io.stdout("first");
  assert.deepEqual(writes, ["out:first"]);
  io.stdout("a");
  io.stdout("b");
  assert.deepEqual(writes, ["out:first"], "a text right after a write waits for the batch");
  await sleep(0);
  await sleep(0);
  assert.deepEqual(writes, ["out:first", "out:ab"]);
});

Deno.test("exec writes a text at once again after stdout was quiet for QUIET_MS", async () => {
  const { writes, io, advance } = recorder();
  io.stdout("one");
  advance(QUIET_MS - 1);
  io.stdout("two");
  assert.deepEqual(writes, ["out:one"]);
  await sleep(0);
  await sleep(0);
  assert.deepEqual(writes, ["out:one", "out:two"]);
  advance(QUIET_MS);
  io.stdout("three");
  assert.deepEqual(writes, ["out:one", "out:two", "out:three"]);
});

Deno.test("exec flushes a batch once it reaches 64 KiB, and stderr after what stdout holds", () => {
  const { writes, io } = recorder();
  io.stdout("x");
  const big = "y".repeat(64 * 1024);
  io.stdout("z");
  io.stdout(big);
  assert.deepEqual(writes.map((w) => w.length), [5, 4 + 1 + big.length]);
  io.stdout("w");
  io.stderr("oops");
  assert.deepEqual(writes.slice(2), ["out:w", "err:oops"]);
  io.flush();
  assert.equal(writes.length, 4, "nothing is left to flush");
});
