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

/**
 * The built-in tools, in the order they are offered to the model; `bash` runs under `bash`
 * (the sandbox and `shell_env_passthrough`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools } from "./builtin.ts";
 * assert(builtinTools().map((t) => t.name).join() ===
 *   "bash,read_file,write_file,edit_file,glob,grep");
 * ```
 */
export function builtinTools(bash: BashOptions = {}): AnyTool[] {
  return [createBashTool(bash), readFileTool, writeFileTool, editFileTool, globTool, grepTool];
}
