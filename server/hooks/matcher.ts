/**
 * Whether a hook's `matcher` matches a tool name (or, for `SessionStart` and `SessionEnd`, the
 * source or reason), as Claude Code documents it: omitted, `""` or `*` match everything; a
 * matcher of only letters, digits, `_` and `|` is an exact name or a `|`-separated list of
 * them; anything else is a JavaScript regular expression tested against the name (unanchored,
 * case-sensitive: `mcp__.*`, `^Notebook`).
 *
 * @module
 */

/**
 * Whether `matcher` matches `name`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { matches } from "./matcher.ts";
 * assert(matches(undefined, "Bash") && matches("*", "Bash") && matches("", "Bash"));
 * assert(matches("Edit|Write", "Write") && !matches("Edit|Write", "WriteX"));
 * assert(matches("mcp__.*", "mcp__fs__read") && !matches("Bash", "bash"));
 * ```
 */
export function matches(matcher: string | undefined, name: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) return matcher.split("|").includes(name);
  try {
    return new RegExp(matcher).test(name);
  } catch {
    // Validated at startup; a pattern that still fails matches nothing.
    return false;
  }
}
