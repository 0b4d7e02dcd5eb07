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
// The tools' JSON Schemas as z.toJSONSchema derives them, computed ahead: deriving them at the
// first request cost that request ~10-20 ms (tests/server/tools/builtin_parameters_test.ts
// holds this file to the schemas and rewrites it with UPDATE=1).
import PARAMETERS from "./builtin_parameters.json" with { type: "json" };

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
  const table = PARAMETERS as Record<string, Record<string, unknown>>;
  return tools.map((tool) => {
    const parameters = table[tool.name];
    return parameters ? { ...tool, parameters } : tool;
  });
}
