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
 * Each built-in's own module, imported on its first call: a `bash` call loads `bash.ts` and what
 * it needs, not every tool's code (the other seven cost a first call ~13 ms). The list is
 * `builtin.ts`'s; tests/server/tools/builtin_facts_test.ts holds the two to one another.
 */
const LOADERS: Readonly<
  Record<string, (bash: BashOptions, web: WebFetchConfig) => Promise<AnyTool>>
> = {
  bash: async (bash) => (await import("./bash.ts")).createBashTool(bash),
  read_file: async () => (await import("./read_file.ts")).readFileTool,
  write_file: async () => (await import("./write_file.ts")).writeFileTool,
  edit_file: async () => (await import("./edit_file.ts")).editFileTool,
  glob: async () => (await import("./glob.ts")).globTool,
  grep: async () => (await import("./grep.ts")).grepTool,
  web_fetch: async (_, web) => (await import("./web_fetch.ts")).createWebFetchTool(web),
  update_plan: async () => (await import("./update_plan.ts")).updatePlanTool,
};

/** The names of the built-ins that have a loader, in its order. */
export const LAZY_BUILTIN_NAMES: readonly string[] = Object.keys(LOADERS);

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
  const load = (name: string) => {
    const loader = LOADERS[name];
    if (!loader) return Promise.reject(new TypeError(`no loader for the built-in tool "${name}"`));
    return loader(bash, web);
  };
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
        warm: (cwd: string) => bash.sandbox?.warm(cwd),
      });
    }
    return lazyTool(known, () => load(name));
  });
}
