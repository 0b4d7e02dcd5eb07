/**
 * The set of tools a server offers, by name, and their provider-facing JSON Schemas.
 *
 * @module
 */
import type { AnyTool, Risk } from "./tool.ts";

/** A tool as offered to the model (OpenAI function format). */
export interface ToolSpec {
  /** Always a function. */
  type: "function";
  /** The tool's name, description for the model, and arguments as JSON Schema. */
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A schema that can state itself as JSON Schema: zod's (`schema.toJSONSchema()`). */
interface SelfDescribing {
  toJSONSchema(params: { io: "input" }): Record<string, unknown>;
}

/**
 * The JSON Schema of a tool that brings no `parameters`, from its zod schema. zod's own method,
 * not `z.toJSONSchema`: importing zod here would load it for every turn, and a tool with a zod
 * schema has loaded it already.
 */
function derivedParameters(tool: AnyTool): Record<string, unknown> {
  const schema = tool.schema as unknown as Partial<SelfDescribing>;
  if (typeof schema.toJSONSchema !== "function") {
    throw new TypeError(
      `Tool "${tool.name}" has no "parameters" and its schema is not a zod schema: give it ` +
        `"parameters" (a JSON Schema)`,
    );
  }
  return schema.toJSONSchema({ io: "input" });
}

/**
 * Tools by name. Adding a tool is one `register` call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { ToolRegistry } from "./registry.ts";
 * import { defineTool } from "./tool.ts";
 * const r = new ToolRegistry();
 * r.register(defineTool({
 *   name: "noop", description: "Does nothing", schema: z.object({}),
 *   risk: () => "read", summary: () => "Nothing",
 *   run: () => Promise.resolve({ success: true, output: "", truncated: false }),
 * }));
 * assert(r.get("noop") !== undefined);
 * ```
 */
export class ToolRegistry {
  #tools = new Map<string, AnyTool>();
  #specs: ToolSpec[] | undefined;

  /** Creates a registry holding `tools`. */
  constructor(tools: Iterable<AnyTool> = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool; a second tool of the same name is a programming error. */
  register(tool: AnyTool): this {
    if (this.#tools.has(tool.name)) {
      throw new TypeError(`Cannot register tool "${tool.name}": the name is taken`);
    }
    this.#tools.set(tool.name, tool);
    this.#specs = undefined;
    return this;
  }

  /** Removes a tool (an MCP server's tool that went away); false when there was none. */
  unregister(name: string): boolean {
    const had = this.#tools.delete(name);
    if (had) this.#specs = undefined;
    return had;
  }

  /** The tool of that name, if any. */
  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  /** All tools, in registration order. */
  list(): AnyTool[] {
    return [...this.#tools.values()];
  }

  /** The tools as OpenAI function specs, computed once. */
  specs(): ToolSpec[] {
    this.#specs ??= this.list().map((t) => {
      const { $schema: _, ...parameters } = t.parameters ?? derivedParameters(t);
      return {
        type: "function" as const,
        function: { name: t.name, description: t.description, parameters },
      };
    });
    return this.#specs;
  }
}

/**
 * Whether a call runs in plan mode (`approval_policy: "plan"`): its tool declares itself
 * read-only (`readOnly`: read_file, glob, grep, update_plan, web_fetch, an MCP tool a trusted
 * server annotates `readOnlyHint`) and this call is neither a write nor a process (a read whose
 * path leaves the workspace is announced as a write, so it is refused too). Every other call is
 * refused without asking.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runsInPlanMode } from "./registry.ts";
 * assert(runsInPlanMode({ readOnly: true }, "read"));
 * assert(!runsInPlanMode({ readOnly: true }, "write"));
 * assert(!runsInPlanMode({}, "read"));
 * ```
 */
export function runsInPlanMode(tool: Pick<AnyTool, "readOnly">, risk: Risk): boolean {
  return tool.readOnly === true && risk !== "write" && risk !== "process";
}
