/**
 * The project's own import graph, read from the source text, and the cycles in it. Static
 * imports, re-exports, `import type` and dynamic `import("...")` with a literal path all count:
 * a cycle through any of them still ties the two files together.
 */

/** Local file → the local files it imports (absolute paths). */
export type ImportGraph = Map<string, string[]>;

// `from "./x.ts"`, `import "./x.ts"`, `import("./x.ts")`; comments are stripped first.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

/** The relative specifiers a TypeScript source imports, comments and doc examples ignored. */
export function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(SPECIFIER)].map((m) => m[1]!);
}

/** Builds the graph of every `.ts` file under `dirs` and the given `files`. */
export async function importGraph(
  root: string,
  entries: { dirs: string[]; files: string[] },
): Promise<ImportGraph> {
  const paths: string[] = entries.files.map((f) => `${root}/${f}`);
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile && p.endsWith(".ts")) paths.push(p);
    }
  };
  for (const d of entries.dirs) await walk(`${root}/${d}`);
  const graph: ImportGraph = new Map();
  for (const p of paths) {
    const base = new URL(`file://${p}`);
    graph.set(
      p,
      importsOf(await Deno.readTextFile(p)).map((s) => new URL(s, base).pathname),
    );
  }
  return graph;
}

/**
 * Every cycle's files, one strongly connected component of more than one file (or a file that
 * imports itself) per entry, each sorted; Tarjan's algorithm, iterative.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let n: string;
      do {
        n = stack.pop()!;
        onStack.delete(n);
        component.push(n);
      } while (n !== frame.node);
      if (component.length > 1 || edges.includes(frame.node)) cycles.push(component.sort());
    }
  }
  return cycles;
}
