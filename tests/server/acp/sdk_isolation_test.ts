/**
 * The ACP SDK costs startup time, so only `scv acp` loads it: no module outside the ACP adapter
 * imports it, and the other commands' paths never reach the adapter.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { importGraph } from "../../support/import_graph.ts";

const ROOT = new URL("../../../", import.meta.url).pathname.replace(/\/$/, "");
const SDK = "@agentclientprotocol/sdk";

Deno.test("only the ACP adapter imports the ACP SDK", async () => {
  const importers: string[] = [];
  for (const dir of ["protocol", "server", "cli", "tui"]) {
    for await (const f of walk(`${ROOT}/${dir}`)) {
      if ((await Deno.readTextFile(f)).includes(`"${SDK}`)) {
        importers.push(f.slice(ROOT.length + 1));
      }
    }
  }
  assert(importers.length > 0, "the SDK is imported somewhere");
  assertEquals(importers.filter((f) => !f.startsWith("server/acp/")), []);
});

Deno.test("main.ts reaches the ACP adapter only through the acp command", async () => {
  const graph = await importGraph(ROOT, {
    dirs: ["protocol", "server", "cli", "tui"],
    files: ["main.ts", "mod.ts"],
  });
  const importersOfAdapter = [...graph.entries()]
    .filter(([file, deps]) =>
      !file.includes("/server/acp/") && deps.some((d) => d.includes("/server/acp/"))
    )
    .map(([file]) => file.slice(ROOT.length + 1));
  assertEquals(importersOfAdapter, ["cli/acp_command.ts"]);
  const main = graph.get(`${ROOT}/main.ts`) ?? [];
  assert(main.includes(`${ROOT}/cli/acp_command.ts`), "main.ts dispatches to the acp command");
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walk(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}
