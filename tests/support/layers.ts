/**
 * The layers of the source tree and which may import which (docs/architecture.md states the same
 * rules in words), and the check that finds every import between folders they forbid. A unit is
 * a top folder (`protocol/`, `cli/`, `tui/`), a folder of `server/` (`server/core/`,
 * `server/tools/`, ...), the files directly in `server/` (the base), or an entry file.
 *
 * @module
 */
import { findCycles, type ImportGraph } from "./import_graph.ts";

/** A layer: its units, and the layers its units may import besides their own unit. */
export interface Layer {
  units: readonly string[];
  /** Layers whose units may be imported; a layer naming itself lets its units import each other. */
  may: readonly string[];
  /** For some of `may`: the one file of that layer its units may import (its face). */
  through?: Readonly<Record<string, string>>;
}

/** The layers, bottom to top. A new folder of `server/` must be placed here (and in the doc). */
export const LAYERS: Readonly<Record<string, Layer>> = {
  /** The wire: schemas, framing, the typed client. Imports nothing of the project. */
  protocol: { units: ["protocol"], may: [] },
  /** Configuration and small shared helpers, the files directly in `server/`. */
  base: { units: ["server"], may: ["protocol"] },
  /** What the core is built on; they may import each other, without a cycle between folders. */
  lower: {
    units: [
      "server/tools",
      "server/provider",
      "server/context",
      "server/sandbox",
      "server/sessions",
      "server/mcp",
      "server/checkpoints",
      "server/hooks",
      "server/images",
    ],
    may: ["protocol", "base", "lower"],
  },
  /** The session core: the session, its turn loop, approvals, opening a recorded session. */
  core: { units: ["server/core"], may: ["protocol", "base", "lower"] },
  /** The server's faces, each translating its wire to the core; never importing each other. */
  face: { units: ["server/peon", "server/acp"], may: ["protocol", "base", "lower", "core"] },
  /** The terminal client: a Peon client, through the protocol's face only. */
  tui: { units: ["tui"], may: ["protocol"], through: { protocol: "protocol/mod.ts" } },
  /** The library entry. */
  library: { units: ["mod.ts"], may: ["protocol", "base", "lower", "core", "face"] },
  /** The commands: they start the faces and the TUI. */
  cli: { units: ["cli"], may: ["protocol", "base", "lower", "core", "face", "tui"] },
  /** The command-line entry. */
  entry: { units: ["main.ts"], may: ["protocol", "cli"] },
};

/** The unit of a path relative to the root (`server/core/turn.ts` → `server/core`). */
export function unitOf(rel: string): string {
  const parts = rel.split("/");
  if (parts.length === 1) return rel;
  if (parts[0] === "server") return parts.length === 2 ? "server" : `server/${parts[1]}`;
  return parts[0]!;
}

/** The layer a unit belongs to; undefined for a unit no layer names. */
export function layerOf(unit: string, layers: Readonly<Record<string, Layer>> = LAYERS) {
  return Object.keys(layers).find((name) => layers[name]!.units.includes(unit));
}

/**
 * Every import the layers forbid, as `from -> to (why)` with paths relative to `root`, and every
 * cycle between units (which the file-level cycle check cannot see), sorted.
 */
export function layerViolations(
  graph: ImportGraph,
  root: string,
  layers: Readonly<Record<string, Layer>> = LAYERS,
): string[] {
  const rel = (p: string) => p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p;
  const out = new Set<string>();
  const units: ImportGraph = new Map();
  for (const [file, imports] of graph) {
    const from = rel(file);
    const fromUnit = unitOf(from);
    const fromLayer = layerOf(fromUnit, layers);
    if (fromLayer === undefined) {
      out.add(`${from}: ${fromUnit} is in no layer (place it in tests/support/layers.ts)`);
      continue;
    }
    for (const target of imports) {
      const to = rel(target);
      const toUnit = unitOf(to);
      if (toUnit === fromUnit) continue;
      const edges = units.get(fromUnit) ?? [];
      if (!edges.includes(toUnit)) units.set(fromUnit, [...edges, toUnit]);
      const toLayer = layerOf(toUnit, layers);
      if (toLayer === undefined) {
        out.add(`${from} -> ${to} (${toUnit} is in no layer)`);
      } else if (!layers[fromLayer]!.may.includes(toLayer)) {
        out.add(`${from} -> ${to} (${fromLayer} may not import ${toLayer})`);
      } else {
        const face = layers[fromLayer]!.through?.[toLayer];
        if (face !== undefined && to !== face) {
          out.add(`${from} -> ${to} (${fromLayer} imports ${toLayer} only through ${face})`);
        }
      }
    }
  }
  for (const cycle of findCycles(units)) out.add(`folder cycle: ${cycle.join(" <-> ")}`);
  return [...out].sort();
}
