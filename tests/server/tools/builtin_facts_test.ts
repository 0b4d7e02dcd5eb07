/**
 * The built-in tools' precomputed facts (server/tools/builtin_facts.json: description, flags,
 * and the JSON Schema zod derives from each schema) are the tools' own, and the lazily loaded
 * built-ins a server offers (server/tools/lazy_builtin.ts) match the loaded tools before and
 * after they load. `UPDATE=1 deno test -A` on this file rewrites the JSON.
 */
import assert from "node:assert/strict";
import * as z from "zod";
import { builtinTools } from "../../../server/tools/builtin.ts";
import { LAZY_BUILTIN_NAMES, lazyBuiltinTools } from "../../../server/tools/lazy_builtin.ts";
import type { AnyTool } from "../../../server/tools/tool.ts";
import type { Sandbox } from "../../../server/sandbox/mod.ts";

const FILE = new URL("../../../server/tools/builtin_facts.json", import.meta.url);

/** Each built-in tool's facts as the tool itself states them (bash's description: unsandboxed). */
function derived(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const tool of builtinTools()) {
    const { $schema: _, ...parameters } = z.toJSONSchema(
      tool.schema as unknown as z.ZodType,
      { io: "input" },
    ) as Record<string, unknown>;
    out[tool.name] = {
      description: tool.description,
      ...(tool.readOnly ? { readOnly: true } : {}),
      ...(tool.neverAsks ? { neverAsks: true } : {}),
      // Every call runs unasked under "auto" (the file tools); bash's depends on the sandbox.
      ...(tool.autoApproved && tool.name !== "bash" ? { autoApproved: true } : {}),
      parameters,
    };
  }
  return out;
}

Deno.test("the built-in tools' precomputed facts are the tools' own", async () => {
  const want = derived();
  if (Deno.env.get("UPDATE") === "1") {
    await Deno.writeTextFile(FILE, JSON.stringify(want, null, 2) + "\n");
  }
  assert.deepEqual(JSON.parse(await Deno.readTextFile(FILE)), want);
  for (const tool of builtinTools()) {
    assert.deepEqual(tool.parameters, (want[tool.name] as { parameters: unknown }).parameters);
    assert.equal(tool.timeoutMs, undefined, `${tool.name}: a time limit of its own is a fact too`);
  }
});

/** A sandbox as far as the tools' facts read it. */
function sandbox(active: boolean, settings: Partial<Sandbox["settings"]>): Sandbox {
  return {
    active,
    settings: { mode: "workspace-write", network: false, ...settings },
    warm: () => {},
  } as unknown as Sandbox;
}

/** What the model and the approval flow see of a tool before it runs. */
function facts(t: AnyTool) {
  return {
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    readOnly: t.readOnly,
    neverAsks: t.neverAsks,
    timeoutMs: t.timeoutMs,
    sandboxed: t.sandboxed?.(),
    autoApproved: ["read", "write", "process", "network"].map((r) => t.autoApproved?.(r as never)),
    warms: typeof t.warm,
  };
}

Deno.test("the lazily loaded built-ins state the loaded tools' facts under every sandbox", () => {
  const cases = [
    undefined,
    sandbox(false, {}),
    sandbox(true, {}),
    sandbox(true, { mode: "read-only" }),
    sandbox(true, { network: true }),
    sandbox(true, { hosts: ["example.com"] }),
  ];
  for (const s of cases) {
    const options = s ? { sandbox: s } : {};
    assert.deepEqual(
      lazyBuiltinTools(options).map(facts),
      builtinTools(options).map(facts),
      JSON.stringify(s?.settings ?? null),
    );
  }
});

Deno.test("a lazily loaded built-in refuses arguments until it loads, then behaves as the tool", async () => {
  const [bash, readFile] = lazyBuiltinTools();
  const parsed = bash!.schema.safeParse({ command: "ls" });
  assert.equal(parsed.success, false);
  assert.throws(() => bash!.summary({ command: "ls" }), /before load/);
  await bash!.load!();
  assert.deepEqual(bash!.schema.safeParse({ command: "ls" }), {
    success: true,
    data: { command: "ls" },
  });
  assert.equal(bash!.summary({ command: "ls" }), "Run shell command: ls");
  // Each tool is loaded by its own load(), from its own module.
  assert.equal(readFile!.schema.safeParse({ path: "a" }).success, false);
  await readFile!.load!();
  assert.equal(readFile!.schema.safeParse({ path: "a" }).success, true);
  const cwd = Deno.cwd();
  const real = builtinTools()[1]!;
  for (const path of ["deno.json", "/etc/passwd"]) {
    assert.equal(await readFile!.risk({ path }, { cwd }), await real.risk({ path }, { cwd }), path);
  }
});

Deno.test("each built-in's own loader gives builtinTools()' tool of that name, in its order", async () => {
  const eager = builtinTools();
  assert.deepEqual(LAZY_BUILTIN_NAMES, eager.map((t) => t.name));
  const lazy = lazyBuiltinTools();
  for (const [i, tool] of lazy.entries()) {
    await tool.load!();
    const real = eager[i]!;
    assert.equal(tool.name, real.name);
    // The loaded schema is the tool's own: the same JSON Schema, derived afresh from each.
    const json = (t: AnyTool) => z.toJSONSchema(t.schema as unknown as z.ZodType);
    assert.deepEqual(json(tool), json(real), tool.name);
  }
});
