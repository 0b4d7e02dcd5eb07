import { assertEquals } from "../support/assert.ts";

const ROOT = new URL("../../", import.meta.url);
const TUI = new URL("tui/", ROOT);
const SERVER = new URL("server/", ROOT).href;

/** Every module specifier a TypeScript source names: static, type-only, re-export, dynamic. */
function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1]!);
  return out;
}

/** `file: specifier` for each import of a server module in `source` (a file at `url`). */
function serverImports(url: URL, source: string): string[] {
  return specifiers(source)
    .filter((s) => s.startsWith(".") && new URL(s, url).href.startsWith(SERVER))
    .map((s) => `${url.href.slice(ROOT.href.length)}: ${s}`);
}

async function* tsFiles(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* tsFiles(new URL(`${e.name}/`, dir));
    else if (e.name.endsWith(".ts")) yield new URL(e.name, dir);
  }
}

Deno.test("no TUI module imports a server module except through protocol/ or mod.ts", async () => {
  const found: string[] = [];
  for await (const file of tsFiles(TUI)) {
    found.push(...serverImports(file, await Deno.readTextFile(file)));
  }
  assertEquals(found, []);
});

Deno.test("the import check sees static, type-only, re-exported and dynamic server imports", () => {
  const at = new URL("tui/state/x.ts", ROOT);
  const source = [
    'import { a } from "../../server/a.ts";',
    'import type {\n  B,\n} from "../../server/b.ts";',
    'export * from "../../server/c.ts";',
    'const d = await import("../../server/d.ts");',
    'import "../../server/e.ts";',
    'import { ok } from "../../protocol/schema.ts";',
    'import type { Config } from "../../mod.ts";',
    'import { fine } from "./server/not_the_server.ts";',
  ].join("\n");
  assertEquals(serverImports(at, source).map((s) => s.split(": ")[1]), [
    "../../server/a.ts",
    "../../server/b.ts",
    "../../server/c.ts",
    "../../server/e.ts",
    "../../server/d.ts",
  ]);
});
