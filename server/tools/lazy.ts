/**
 * A tool whose code loads on its first call. A server offers the built-in tools to the model
 * from their names, descriptions and precomputed JSON Schemas alone: their modules define zod
 * schemas, and zod's first use costs a `scv exec` text turn ~35 ms that a turn without a tool
 * call never needs (docs/performance.md).
 *
 * @module
 */
import type { AnyTool, ArgumentSchema } from "./tool.ts";

/** What is known of a tool before its code loads: everything but its behaviour. */
export type ToolFacts = Pick<
  AnyTool,
  | "name"
  | "description"
  | "parameters"
  | "timeoutMs"
  | "readOnly"
  | "neverAsks"
  | "sandboxed"
  | "autoApproved"
  | "warm"
>;

/** The schema of a tool not loaded yet: it accepts nothing, saying why. */
const NOT_LOADED: ArgumentSchema<never> = {
  safeParse: () => ({
    success: false,
    error: { issues: [{ path: [], message: "the tool is not loaded yet" }] },
  }),
};

/**
 * A tool with `facts` now and the rest from `load()`, which runs once (a failed load is tried
 * again on the next call). The loaded tool's own facts must agree with `facts`
 * (tests/server/tools/lazy_builtin_test.ts holds the built-ins to that).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lazyTool } from "./lazy.ts";
 * import { bashTool } from "./bash.ts";
 * const lazy = lazyTool({ name: "bash", description: bashTool.description }, () =>
 *   Promise.resolve(bashTool));
 * assert.equal(lazy.schema.safeParse({ command: "ls" }).success, false);
 * await lazy.load!();
 * assert.equal(lazy.summary({ command: "ls" }), "Run shell command: ls");
 * ```
 */
export function lazyTool(facts: ToolFacts, load: () => Promise<AnyTool>): AnyTool {
  let loaded: AnyTool | undefined;
  let loading: Promise<void> | undefined;
  const real = (what: string): AnyTool => {
    if (!loaded) throw new Error(`tool "${facts.name}": ${what} before load()`);
    return loaded;
  };
  return {
    ...facts,
    get schema() {
      return loaded?.schema ?? NOT_LOADED;
    },
    load: () =>
      loading ??= load().then((tool) => void (loaded = tool)).catch((e) => {
        loading = undefined;
        throw e;
      }),
    risk: (args, ctx) => real("risk").risk(args, ctx),
    summary: (args) => real("summary").summary(args),
    preview: (args, ctx) => real("preview").preview?.(args, ctx) ?? Promise.resolve(undefined),
    run: (args, ctx) => real("run").run(args, ctx),
  };
}
