/**
 * A module's graph as `deno info --json` reports it (Deno's own resolution: the import map, npm
 * and `node:` specifiers), walked the way `deno run` loads it before any code runs.
 */

/** What `deno info --json` says of a graph, as far as the walk reads it. */
interface Info {
  roots: string[];
  modules: Array<{
    specifier: string;
    dependencies?: Array<{ specifier: string; code?: { specifier?: string }; isDynamic?: boolean }>;
  }>;
}

/**
 * The modules `entry` loads through static value imports, by specifier; with `literalImports`,
 * through literal `import()`s too: what `deno run` reads and parses before any code runs.
 * `config` is the deno.json to resolve with.
 */
export async function staticGraph(
  entry: string,
  config: string,
  literalImports = false,
): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", config, entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...info.roots];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      if ((literalImports || !d.isDynamic) && d.code?.specifier) stack.push(d.code.specifier);
    }
  }
  return seen;
}
