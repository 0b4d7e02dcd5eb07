/**
 * What a session's recorder reads besides the session (whose live view is the core's
 * `liveSessionView`): the approval summary of a recorded call, from the tools loaded at the
 * time.
 *
 * @module
 */
import type { ToolRegistry } from "../tools/registry.ts";

/**
 * The approval summary of a recorded call from the tools `tools()` gives at the time (none
 * loaded yet: undefined), undefined for an unknown tool or arguments it does not accept.
 */
export function recordedSummarizer(
  tools: () => ToolRegistry | undefined,
): (name: string, rawArguments: string) => string | undefined {
  return (name, raw) => {
    const tool = tools()?.get(name);
    if (!tool) return undefined;
    try {
      const parsed = tool.schema.safeParse(raw.trim() === "" ? {} : JSON.parse(raw));
      return parsed.success ? tool.summary(parsed.data) : undefined;
    } catch {
      return undefined;
    }
  };
}
