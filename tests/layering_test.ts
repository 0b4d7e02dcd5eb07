/**
 * The source tree keeps its layers (tests/support/layers.ts, docs/architecture.md): protocol at
 * the bottom, the base, the folders below the core, the core, the faces beside each other, the
 * TUI through the protocol only; and the check that says so finds each kind of violation.
 */
import { assertEquals } from "./support/assert.ts";
import { importGraph } from "./support/import_graph.ts";
import { layerViolations } from "./support/layers.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * Imports the layers forbid that are still there, each to be removed by the named work; the test
 * fails when one is gone too, so this list only shrinks.
 */
const KNOWN: readonly string[] = [];

Deno.test("no import crosses the layers except the known ones still to be removed", async () => {
  const graph = await importGraph(ROOT, {
    dirs: ["protocol", "server", "cli", "tui"],
    files: ["main.ts", "mod.ts"],
  });
  // The graph is real: the Peon face imports the core.
  assertEquals(
    graph.get(`${ROOT}/server/peon/handlers/turn_start.ts`)?.includes(
      `${ROOT}/server/core/run_turn.ts`,
    ),
    true,
  );
  const found = layerViolations(graph, ROOT);
  assertEquals(found.filter((v) => !KNOWN.includes(v)), []);
  assertEquals(KNOWN.filter((v) => !found.includes(v)), []);
});

/** A graph over `/r` from `from -> to` pairs of relative paths. */
function graphOf(edges: Array<[string, string]>) {
  const g = new Map<string, string[]>();
  for (const [from, to] of edges) {
    g.set(`/r/${from}`, [...(g.get(`/r/${from}`) ?? []), `/r/${to}`]);
    if (!g.has(`/r/${to}`)) g.set(`/r/${to}`, []);
  }
  return g;
}

Deno.test("the layering check passes imports that go down, and within a unit", () => {
  const g = graphOf([
    ["server/peon/connection.ts", "server/core/turn.ts"],
    ["server/acp/agent.ts", "server/core/session.ts"],
    ["server/core/turn.ts", "server/tools/registry.ts"],
    ["server/tools/bash.ts", "server/sandbox/mod.ts"],
    ["server/sandbox/mod.ts", "server/config.ts"],
    ["server/config.ts", "protocol/constants.ts"],
    ["server/core/turn.ts", "server/core/seq.ts"],
    ["tui/app.ts", "protocol/mod.ts"],
    ["cli/tui_command.ts", "tui/main.ts"],
    ["main.ts", "cli/exec.ts"],
  ]);
  assertEquals(layerViolations(g, "/r"), []);
});

Deno.test("the layering check finds the TUI importing the protocol past its face", () => {
  const g = graphOf([
    ["tui/state/events.ts", "protocol/schema.ts"],
    ["tui/app.ts", "protocol/client.ts"],
    ["tui/render.ts", "protocol/mod.ts"],
    ["cli/exec.ts", "protocol/client.ts"],
  ]);
  assertEquals(layerViolations(g, "/r"), [
    "tui/app.ts -> protocol/client.ts (tui imports protocol only through protocol/mod.ts)",
    "tui/state/events.ts -> protocol/schema.ts (tui imports protocol only through protocol/mod.ts)",
  ]);
});

Deno.test("the layering check finds a face importing the other face", () => {
  const g = graphOf([["server/acp/agent.ts", "server/peon/connection.ts"]]);
  assertEquals(layerViolations(g, "/r"), [
    "server/acp/agent.ts -> server/peon/connection.ts (face may not import face)",
  ]);
});

Deno.test("the layering check finds imports that go up", () => {
  const g = graphOf([
    ["server/core/session.ts", "server/peon/writer.ts"],
    ["server/sessions/recorder.ts", "server/core/session.ts"],
    ["server/config.ts", "server/provider/redact.ts"],
    ["protocol/schema.ts", "server/config.ts"],
    ["tui/app.ts", "server/config.ts"],
    ["tui/app.ts", "mod.ts"],
  ]);
  assertEquals(layerViolations(g, "/r"), [
    "protocol/schema.ts -> server/config.ts (protocol may not import base)",
    "server/config.ts -> server/provider/redact.ts (base may not import lower)",
    "server/core/session.ts -> server/peon/writer.ts (core may not import face)",
    "server/sessions/recorder.ts -> server/core/session.ts (lower may not import core)",
    "tui/app.ts -> mod.ts (tui may not import library)",
    "tui/app.ts -> server/config.ts (tui may not import base)",
  ]);
});

Deno.test("the layering check finds a cycle between two folders of one layer", () => {
  const g = graphOf([
    ["server/tools/bash.ts", "server/sandbox/mod.ts"],
    ["server/sandbox/policy.ts", "server/tools/workspace.ts"],
  ]);
  assertEquals(layerViolations(g, "/r"), ["folder cycle: server/sandbox <-> server/tools"]);
});

Deno.test("the layering check names a folder no layer holds", () => {
  const g = graphOf([["server/widgets/png.ts", "server/utf8.ts"]]);
  assertEquals(layerViolations(g, "/r"), [
    "server/widgets/png.ts: server/widgets is in no layer (place it in tests/support/layers.ts)",
  ]);
});
