/**
 * The built-in tools of CONTRACT.md ("Tools").
 *
 * @module
 */
import type { AnyTool } from "./tool.ts";

/** The built-in tools, in the order they are offered to the model. */
export function builtinTools(): AnyTool[] {
  return [];
}
