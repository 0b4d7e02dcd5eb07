import { assert, assertEquals } from "../support/assert.ts";
import { LiveRegion, SYNC_END, SYNC_START } from "../../tui/terminal.ts";
import { VirtualTerminal } from "./vt.ts";

Deno.test("live region draws its first frame inside synchronized output", () => {
  const vt = new VirtualTerminal(20, 6);
  const r = new LiveRegion();
  const out = r.update(["one", "two"]);
  assert(out.startsWith(SYNC_START) && out.endsWith(SYNC_END));
  vt.write(out);
  assertEquals(vt.lines().slice(0, 2), ["one", "two"]);
  assertEquals(vt.syncDepth, 0);
});

Deno.test("live region rewrites only the line that changed", () => {
  const vt = new VirtualTerminal(20, 6);
  const r = new LiveRegion();
  vt.write(r.update(["alpha", "beta", "gamma"]));
  const out = r.update(["alpha", "BETA", "gamma"]);
  assert(out.includes("BETA"));
  assert(!out.includes("alpha") && !out.includes("gamma"), JSON.stringify(out));
  vt.write(out);
  assertEquals(vt.lines().slice(0, 3), ["alpha", "BETA", "gamma"]);
});

Deno.test("live region writes nothing at all when the frame is unchanged", () => {
  const r = new LiveRegion();
  r.update(["a", "b"]);
  assertEquals(r.update(["a", "b"]), "");
});

Deno.test("live region shrinking clears the rows it no longer uses", () => {
  const vt = new VirtualTerminal(20, 6);
  const r = new LiveRegion();
  vt.write(r.update(["1", "2", "3", "4"]));
  vt.write(r.update(["1", "x"]));
  assertEquals(vt.lines(), ["1", "x", "", "", "", ""]);
});

Deno.test("live region growing at the bottom of the screen scrolls instead of overwriting", () => {
  const vt = new VirtualTerminal(20, 4);
  const r = new LiveRegion();
  vt.write(r.update(["a", "b", "c"], { above: ["old"] }));
  vt.write(r.update(["a", "b", "c", "d"]));
  assertEquals(vt.all(), ["old", "a", "b", "c", "d"]);
});

Deno.test("finished lines go above the region into scrollback and are never rewritten", () => {
  const vt = new VirtualTerminal(30, 5);
  const r = new LiveRegion();
  vt.write(r.update(["> composer", "status"]));
  vt.write(r.update(["> composer", "status"], { above: ["item 1", "item 2", "item 3", "item 4"] }));
  const later = r.update(["> composer typed", "status"]);
  assert(!later.includes("item"), "scrollback lines are not redrawn");
  vt.write(later);
  assertEquals(vt.all(), ["item 1", "item 2", "item 3", "item 4", "> composer typed", "status"]);
  assertEquals(vt.scrollback.length > 0, true);
});

Deno.test("after a resize the region is erased from its reflowed top and redrawn", () => {
  const r = new LiveRegion();
  r.update(["x".repeat(80), "y".repeat(10), "status"]);
  const out = r.update(["a", "b", "status"], { resizedTo: 40 });
  // 80 columns reflow to 2 rows at 40, the 10-column line to 1: the top is 3 rows up.
  assert(out.startsWith(SYNC_START + "\x1b[3A\r\x1b[J"), JSON.stringify(out.slice(0, 30)));
});

/** A small deterministic PRNG so the randomized test is reproducible. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

Deno.test("any sequence of frames and finished lines leaves the screen equal to the model", () => {
  for (let seed = 1; seed <= 30; seed++) {
    const rand = rng(seed);
    const vt = new VirtualTerminal(24, 8);
    const r = new LiveRegion();
    const written: string[] = [];
    let frame: string[] = ["status"];
    for (let step = 0; step < 60; step++) {
      const n = 1 + Math.floor(rand() * 6);
      const next = Array.from(
        { length: n },
        (_, i) =>
          frame[i] !== undefined && rand() < 0.6
            ? frame[i]!
            : `s${step}l${i}${"#".repeat(Math.floor(rand() * 15))}`,
      );
      const above = rand() < 0.3
        ? Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, i) => `done ${step}.${i}`)
        : [];
      vt.write(r.update(next, { above }));
      written.push(...above);
      frame = next;
      assertEquals(vt.all(), [...written, ...frame], `seed ${seed} step ${step}`);
      assertEquals(vt.syncDepth, 0);
    }
  }
});

Deno.test("erase removes the region and leaves the cursor at its top", () => {
  const vt = new VirtualTerminal(20, 6);
  const r = new LiveRegion();
  vt.write(r.update(["a", "b", "c"], { above: ["kept"] }));
  vt.write(r.erase());
  assertEquals(vt.all(), ["kept"]);
  assertEquals(vt.row, 1);
});
