/**
 * The built-in tools of CONTRACT.md ("Tools").
 *
 * @module
 */
import type { AnyTool } from "./tool.ts";
import { type BashOptions, createBashTool } from "./bash.ts";
import { readFileTool } from "./read_file.ts";
import { writeFileTool } from "./write_file.ts";
import { editFileTool } from "./edit_file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { createWebFetchTool, type WebFetchConfig } from "./web_fetch.ts";
import { updatePlanTool } from "./update_plan.ts";
// The tools' facts (description, flags, and JSON Schema as z.toJSONSchema derives it), computed
// ahead: deriving the schemas at the first request cost it ~10-20 ms, and a server offers the
// tools from this file before their modules load (lazy_builtin.ts).
// tests/server/tools/builtin_facts_test.ts holds it to the tools and rewrites it with UPDATE=1.
import FACTS from "./builtin_facts.json" with { type: "json" };

/**
 * The built-in tools, in the order they are offered to the model; `bash` runs under `bash`
 * (the sandbox and `shell_env_passthrough`), `web_fetch` under `web` (`web_fetch_*`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools } from "./builtin.ts";
 * assert(builtinTools().map((t) => t.name).join() ===
 *   "bash,read_file,write_file,edit_file,glob,grep,web_fetch,update_plan");
 * ```
 */
export function builtinTools(bash: BashOptions = {}, web: WebFetchConfig = {}): AnyTool[] {
  const tools: AnyTool[] = [
    createBashTool(bash),
    readFileTool,
    writeFileTool,
    editFileTool,
    globTool,
    grepTool,
    // It only reads from the network, within its own host checks and approval: plan mode
    // lets it run (registry.ts, runsInPlanMode).
    createWebFetchTool(web),
    updatePlanTool,
  ];
  const table = FACTS as Record<string, { parameters?: Record<string, unknown> }>;
  return tools.map((tool) => {
    const parameters = table[tool.name]?.parameters;
    return parameters ? { ...tool, parameters } : tool;
  });
}
