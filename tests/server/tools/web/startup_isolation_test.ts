/**
 * The HTML libraries cost a few hundred milliseconds to load, so only web_fetch's converter
 * imports them, the worker that runs it is the one module that imports the converter, and
 * web_fetch loads the worker only when a page arrives (a dynamic import).
 */
import { assertEquals } from "../../../support/assert.ts";

const ROOT = new URL("../../../../", import.meta.url).pathname.replace(/\/$/, "");
const LIBRARIES = ["@mozilla/readability", "linkedom", "turndown"];

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walk(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

Deno.test("only web_fetch's converter imports the HTML libraries, and only dynamically", async () => {
  const importers: string[] = [];
  const converterImports: string[] = [];
  const workerImports: string[] = [];
  for (const dir of ["protocol", "server", "cli", "tui"]) {
    for await (const f of walk(`${ROOT}/${dir}`)) {
      const text = await Deno.readTextFile(f);
      const rel = f.slice(ROOT.length + 1);
      if (LIBRARIES.some((lib) => new RegExp(`from "${lib}"`).test(text))) importers.push(rel);
      if (rel === "server/tools/web/html_markdown.ts") continue; // its own doc example
      for (const m of text.matchAll(/(from|import\() ?"[^"]*html_markdown\.ts"/g)) {
        converterImports.push(`${rel}: ${m[1]}`);
      }
      if (rel === "server/tools/web/html_worker.ts") continue; // its own Worker URL
      for (const m of text.matchAll(/(from|import\() ?"[^"]*html_worker\.ts"/g)) {
        workerImports.push(`${rel}: ${m[1]}`);
      }
    }
  }
  assertEquals(importers, ["server/tools/web/html_markdown.ts"]);
  assertEquals(converterImports, ["server/tools/web/html_worker.ts: from"]);
  assertEquals(workerImports, ["server/tools/web_fetch.ts: import("]);
});
