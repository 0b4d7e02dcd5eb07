import { assert, assertEquals } from "../support/assert.ts";
import { LiveRegion, SYNC_END, SYNC_START } from "../../tui/terminal.ts";
import { VirtualTerminal } from "./vt.ts";

/** A virtual terminal whose cursor sits on a fresh line below `history` lines. */
function terminal(cols: number, rows: number, history: string[] = ["$ scv"]): VirtualTerminal {
  const vt = new VirtualTerminal(cols, rows);
  vt.write(history.map((l) => l + "\r\n").join(""));
  return vt;
}

const nonBlank = (lines: string[]) => lines.filter((l) => l !== "");

Deno.test("live region draws its first frame at the bottom, inside synchronized output", () => {
  const vt = terminal(20, 6);
  const r = new LiveRegion();
  const out = r.update(["one", "two"], { rows: 6, cols: 20 });
  assert(out.startsWith(SYNC_START) && out.endsWith(SYNC_END));
  vt.write(out);
  assertEquals(vt.lines(), ["$ scv", "", "", "", "one", "two"]);
  assertEquals(vt.syncDepth, 0);
});

Deno.test("live region rewrites only the line that changed", () => {
  const vt = terminal(20, 6);
  const r = new LiveRegion();
  const size = { rows: 6, cols: 20 };
  vt.write(r.update(["alpha", "beta", "gamma"], size));
  const out = r.update(["alpha", "BETA", "gamma"], size);
  assert(out.includes("BETA"));
  assert(!out.includes("alpha") && !out.includes("gamma"), JSON.stringify(out));
  vt.write(out);
  assertEquals(vt.lines().slice(-3), ["alpha", "BETA", "gamma"]);
});

Deno.test("live region writes nothing at all when the frame is unchanged", () => {
  const r = new LiveRegion();
  r.update(["a", "b"], { rows: 6, cols: 20 });
  assertEquals(r.update(["a", "b"], { rows: 6, cols: 20 }), "");
});

Deno.test("finished lines fill the rows above the region, then scroll into scrollback", () => {
  const vt = terminal(30, 6);
  const r = new LiveRegion();
  const size = { rows: 6, cols: 30 };
  vt.write(r.update(["> composer", "status"], size));
  vt.write(r.update(["> composer", "status"], { ...size }, { above: ["item 1"] }));
  assertEquals(vt.lines(), ["$ scv", "item 1", "", "", "> composer", "status"]);
  vt.write(r.update(["> composer", "status"], size, { above: ["item 2", "item 3", "item 4"] }));
  const later = r.update(["> composer typed", "status"], size);
  assert(!later.includes("item"), "scrollback lines are not redrawn");
  vt.write(later);
  assertEquals(vt.all(), [
    "$ scv",
    "item 1",
    "item 2",
    "item 3",
    "item 4",
    "> composer typed",
    "status",
  ]);
  assertEquals(vt.scrollback, ["$ scv"]);
});

Deno.test("a growing region takes blank rows first and scrolls only when there are none", () => {
  const vt = terminal(20, 5);
  const r = new LiveRegion();
  const size = { rows: 5, cols: 20 };
  vt.write(r.update(["a"], size, { above: ["done"] }));
  vt.write(r.update(["a", "b", "c"], size));
  assertEquals(vt.lines(), ["$ scv", "done", "a", "b", "c"]);
  vt.write(r.update(["a", "b", "c", "d"], size));
  assertEquals(vt.all(), ["$ scv", "done", "a", "b", "c", "d"]);
  vt.write(r.update(["x"], size));
  assertEquals(nonBlank(vt.all()), ["$ scv", "done", "x"]);
  assertEquals(vt.lines().at(-1), "x");
});

Deno.test("between frames the cursor is parked at column 0 below the last finished line", () => {
  const vt = terminal(20, 8);
  const r = new LiveRegion();
  vt.write(r.update(["a", "b", "c"], { rows: 8, cols: 20 }, { above: ["done"] }));
  assertEquals([vt.row, vt.col], [2, 0]);
  vt.write(r.update(["a", "B", "c"], { rows: 8, cols: 20 }));
  assertEquals([vt.row, vt.col], [2, 0]);
});

Deno.test("after a narrowing resize the new frame replaces the old region, no remnant left", () => {
  const vt = terminal(80, 10);
  const r = new LiveRegion();
  vt.write(
    r.update(["x".repeat(79), "y".repeat(10), "status"], { rows: 10, cols: 80 }, {
      above: ["done"],
    }),
  );
  vt.resize(40); // cut, as xterm does
  vt.write(r.update(["a", "b", "status"], { rows: 10, cols: 40 }));
  assertEquals(nonBlank(vt.all()), ["$ scv", "done", "a", "b", "status"]);
  // Wider again, the region is redrawn where it is, still once.
  vt.resize(80);
  vt.write(r.update(["a", "b", "c", "status"], { rows: 10, cols: 80 }));
  assertEquals(nonBlank(vt.all()), ["$ scv", "done", "a", "b", "c", "status"]);
});

/** Frames of a turn awaiting approval at 80 columns, for a height. */
function approvalFrame(rows: number): string[] {
  const all = ["⋯ bash", "╭ Approve bash?", "│ echo hi", "│ in /w", "╰ [y] [n]", "──", "›", "──"];
  return [...all.slice(Math.max(0, all.length - (rows - 2))), "awaiting approval"];
}

Deno.test("shrinking below the region's height leaves none of it in scrollback (tmux)", () => {
  const vt = terminal(80, 24, ["$ scv", "› run it", ""]);
  const r = new LiveRegion();
  vt.write(r.update(approvalFrame(24), { rows: 24, cols: 80 }));
  for (const rows of [5, 8, 10, 24, 12]) {
    vt.resizeRows(rows);
    vt.write(r.update(approvalFrame(rows), { rows, cols: 80 }));
    assertEquals(vt.lines().slice(-approvalFrame(rows).length), approvalFrame(rows));
  }
  vt.write(r.update(["›", "idle"], { rows: 12, cols: 80 }, { above: ["✓ bash echo hi"] }));
  assertEquals(nonBlank(vt.all()), ["$ scv", "› run it", "✓ bash echo hi", "›", "idle"]);
});

Deno.test("no frame is a whole-screen clear, even from the top row", () => {
  const vt = terminal(30, 6);
  vt.scrollOnClear = true;
  const r = new LiveRegion();
  const size = { rows: 6, cols: 30 };
  vt.write(r.update(["composer", "status"], size, { above: ["one", "two", "three", "four"] }));
  // The region grows to the whole height, so nothing finished is left on the screen.
  vt.write(r.update(["s1", "s2", "s3", "s4", "composer", "status"], size));
  vt.write(r.update(["s1", "s2", "composer", "status"], size));
  vt.resizeRows(4);
  vt.write(r.update(["s2", "composer", "status"], { rows: 4, cols: 30 }));
  vt.write(r.update(["composer", "status"], { rows: 4, cols: 30 }, { above: ["five"] }));
  vt.write(r.erase());
  assertEquals(vt.screenClears, 0);
  assertEquals(nonBlank(vt.all()), ["$ scv", "one", "two", "three", "four", "five"]);
});

Deno.test("a frame that arrives after the terminal shrank cuts lines instead of wrapping", () => {
  const vt = terminal(40, 10);
  const r = new LiveRegion();
  const size = { rows: 10, cols: 40 };
  vt.write(r.update(["a".repeat(39), "b".repeat(39), "status"], size, { above: ["done"] }));
  vt.resize(20); // the terminal narrowed; the resize has not been seen yet
  vt.write(r.update(["c".repeat(39), "d".repeat(39), "status"], size)); // drawn for the old width
  assertEquals(vt.lines().slice(-3), ["c".repeat(20), "d".repeat(20), "status"]);
  assertEquals(vt.autowrap, true, "autowrap is restored after the frame");
  vt.write(r.update(["c", "d", "status"], { rows: 10, cols: 20 }));
  assertEquals(nonBlank(vt.all()), ["$ scv", "done", "c", "d", "status"]);
});

Deno.test("a cleared screen keeps the finished lines in scrollback, once, and not the region", () => {
  const vt = terminal(20, 6);
  vt.scrollOnClear = true;
  const r = new LiveRegion();
  vt.write(r.update(["a", "b"], { rows: 6, cols: 20 }, { above: ["old"] }));
  vt.write(
    r.update(["a", "b"], { rows: 6, cols: 20 }, {
      above: ["Session cleared"],
      cleared: true,
    }),
  );
  assertEquals(vt.lines(), ["Session cleared", "", "", "", "a", "b"]);
  assertEquals(vt.scrollback, ["$ scv", "old"]);
  assertEquals(vt.screenClears, 0);
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
    const vt = terminal(24, 8);
    const r = new LiveRegion();
    const size = { rows: 8, cols: 24 };
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
      vt.write(r.update(next, size, { above }));
      written.push(...above);
      frame = next;
      assertEquals(
        nonBlank(vt.all()),
        ["$ scv", ...written, ...frame],
        `seed ${seed} step ${step}`,
      );
      assertEquals(vt.lines().slice(-frame.length), frame, `region at the bottom, step ${step}`);
      assertEquals(vt.syncDepth, 0);
    }
  }
});

Deno.test("erase removes the region and leaves the cursor below the last finished line", () => {
  const vt = terminal(20, 6);
  const r = new LiveRegion();
  vt.write(r.update(["a", "b", "c"], { rows: 6, cols: 20 }, { above: ["kept"] }));
  vt.write(r.erase());
  assertEquals(nonBlank(vt.all()), ["$ scv", "kept"]);
  assertEquals([vt.row, vt.col], [2, 0]);
});
