/**
 * What `scv exec` and `scv server` load before their first byte (docs/performance.md): their
 * static module graphs hold no `node:` module (the first one boots Deno's Node layer, ~10-25 ms)
 * and no zod (its bundle, protocol/zod/zod.js, takes ~15 ms to load, plus building the tables). Both come later, by `import()`, when a
 * run needs them. The check reads the graph `deno info` reports and finds what is put back.
 */
import { assert, assertEquals } from "./support/assert.ts";
import { staticGraph as denoGraph } from "./support/deno_graph.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** What `deno run` reads of `entry` before it runs (tests/support/deno_graph.ts). */
function staticGraph(entry: string, literalImports = false): Promise<Set<string>> {
  return denoGraph(entry, `${ROOT}/deno.json`, literalImports);
}

/** What of `graph` is a `node:` module or zod. */
function heavy(graph: Set<string>): string[] {
  return [...graph].filter((s) =>
    s.startsWith("node:") || /^npm:\/?zod@/.test(s) || s.endsWith("/protocol/zod/zod.js")
  ).sort();
}

for (const entry of ["cli/exec.ts", "cli/server_command.ts"]) {
  Deno.test(`${entry} loads no node: module and no zod before it runs`, async () => {
    const graph = await staticGraph(`${ROOT}/${entry}`);
    // The graph is real: the connection that serves the session core is in it.
    assert(graph.has(`file://${ROOT}/server/peon/connection.ts`), [...graph].join("\n"));
    assertEquals(heavy(graph), []);
  });
}

Deno.test("scv server answers initialize before loading any other request's handler", async () => {
  const graph = await staticGraph(`${ROOT}/cli/server_command.ts`);
  const handlers = [...graph].filter((s) => s.includes("/server/peon/handlers/"));
  assertEquals(handlers, [`file://${ROOT}/server/peon/handlers/initialize.ts`]);
  // Nor the turn loop or a session's checkpoints: the first session.start loads them.
  for (const later of ["server/core/run_turn.ts", "server/checkpoints/session_checkpoints.ts"]) {
    assert(!graph.has(`file://${ROOT}/${later}`), later);
  }
});

Deno.test("deno run reads main.ts, its constants, the fast argument parser and the build check before it runs, no command", async () => {
  const graph = await staticGraph(`${ROOT}/main.ts`, true);
  assertEquals([...graph].map((s) => s.replace(`file://${ROOT}/`, "")).sort(), [
    "cli/dist.ts",
    "cli/fast_args.ts",
    "main.ts",
    "protocol/constants.ts",
    "protocol/wire.ts",
  ]);
});

Deno.test("the start-path check finds a node: module and zod when they are imported", async () => {
  const dir = await Deno.makeTempDir({ dir: ROOT, prefix: ".start-path-" });
  try {
    await Deno.writeTextFile(`${dir}/b.ts`, `import "node:path";\nexport const b = 1;\n`);
    await Deno.writeTextFile(
      `${dir}/a.ts`,
      `import "./b.ts";\nimport { z } from "zod";\nimport type {} from "node:fs";\n` +
        `export const a = z.string();\nexport const lazy = () => import("node:crypto");\n`,
    );
    const graph = await staticGraph(`${dir}/a.ts`);
    assertEquals(heavy(graph), [`file://${ROOT}/protocol/zod/zod.js`, "node:path"]);
    // With literal imports followed, the lazy one is found too.
    assertEquals(heavy(await staticGraph(`${dir}/a.ts`, true)), [
      `file://${ROOT}/protocol/zod/zod.js`,
      "node:crypto",
      "node:path",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
