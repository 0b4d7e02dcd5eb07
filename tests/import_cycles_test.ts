/**
 * No import cycle anywhere in the source tree, and the check that says so finds cycles.
 */
import { assertEquals } from "./support/assert.ts";
import { findCycles, importGraph, importsOf } from "./support/import_graph.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("the source tree has no import cycle", async () => {
  const graph = await importGraph(ROOT, {
    dirs: ["protocol", "server", "cli", "tui"],
    files: ["main.ts", "mod.ts"],
  });
  // The graph is real: the agent loop's file is in it and imports the turn.
  const loop = graph.get(`${ROOT}/server/core/run_turn.ts`);
  assertEquals(loop?.includes(`${ROOT}/server/core/turn_failure.ts`), true);
  const cycles = findCycles(graph).map((c) => c.map((p) => p.slice(ROOT.length + 1)));
  assertEquals(cycles, []);
});

Deno.test("the cycle check finds a cycle of two files and one of three", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["a", "c"]],
    ["c", ["d"]],
    ["d", ["e"]],
    ["e", ["c"]],
    ["f", ["a"]],
  ]);
  assertEquals(findCycles(graph), [["c", "d", "e"], ["a", "b"]]);
});

Deno.test("the cycle check finds a file that imports itself and passes a tree", () => {
  assertEquals(findCycles(new Map([["a", ["a"]]])), [["a"]]);
  assertEquals(findCycles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]])), []);
});

Deno.test("import reading counts static, type, re-export and dynamic imports, not comments", () => {
  const source = [
    `import { a } from "./a.ts";`,
    `import type { B } from "../b.ts";`,
    `export * from "./c.ts";`,
    `const d = await import("./d.ts");`,
    `import "./e.ts";`,
    `// import { x } from "./commented.ts";`,
    `/** @example import { y } from "./doc.ts"; */`,
    `import { z } from "zod";`,
  ].join("\n");
  assertEquals(importsOf(source), ["./a.ts", "../b.ts", "./c.ts", "./d.ts", "./e.ts"]);
});
