/**
 * The built-in tools as a server offers them: each from its facts (builtin_facts.json, and
 * bash's from bash_facts.ts), its code loaded on the first call of any of them. A turn that
 * calls no tool then never loads the tool modules or zod (docs/performance.md).
 *
 * @module
 */
import type { AnyTool } from "./tool.ts";
import type { BashOptions } from "./bash.ts";
import type { WebFetchConfig } from "./web_fetch.ts";
import { bashDescription } from "./bash_facts.ts";
import { lazyTool, type ToolFacts } from "./lazy.ts";
import FACTS from "./builtin_facts.json" with { type: "json" };

/** One built-in tool's entry in builtin_facts.json. */
interface Facts {
  description: string;
  parameters: Record<string, unknown>;
  readOnly?: boolean;
  neverAsks?: boolean;
  /** Every call runs unasked under `"auto"` (the file tools: `autoApproved` is always true). */
  autoApproved?: boolean;
}

/**
 * The built-in tools of `builtinTools(bash, web)`, in its order, each loading on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lazyBuiltinTools } from "./lazy_builtin.ts";
 * const tools = lazyBuiltinTools();
 * assert.equal(tools.map((t) => t.name).join(), "bash,read_file,write_file,edit_file,glob,grep,web_fetch,update_plan");
 * await tools[0]!.load!();
 * assert.equal(tools[0]!.summary({ command: "ls" }), "Run shell command: ls");
 * ```
 */
export function lazyBuiltinTools(bash: BashOptions = {}, web: WebFetchConfig = {}): AnyTool[] {
  let real: Promise<Map<string, AnyTool>> | undefined;
  const load = (name: string) =>
    (real ??= import("./builtin.ts").then(({ builtinTools }) =>
      new Map(builtinTools(bash, web).map((t) => [t.name, t]))
    ).catch((e) => {
      real = undefined;
      throw e;
    })).then((tools) => tools.get(name)!);
  const sandboxed = bash.sandbox?.active === true;
  return Object.entries(FACTS as Record<string, Facts>).map(([name, facts]) => {
    const { autoApproved, ...rest } = facts;
    const known: ToolFacts = {
      name,
      ...rest,
      ...(autoApproved ? { autoApproved: () => true } : {}),
    };
    if (name === "bash") {
      Object.assign(known, {
        description: bashDescription(bash.sandbox),
        sandboxed: () => sandboxed,
        autoApproved: () => sandboxed,
        warm: () => bash.sandbox?.warm(),
      });
    }
    return lazyTool(known, () => load(name));
  });
}
