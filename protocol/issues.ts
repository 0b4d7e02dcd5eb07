/**
 * How a failed parse reads: one line naming the offending fields. Without zod, so that a caller
 * that only reports (a tool call's bad arguments) loads no schema table for it.
 *
 * @module
 */

/**
 * One line describing why a value failed a schema, naming the first offending field.
 *
 * `root` names the value itself, for an issue that is about the whole value rather than one of
 * its fields. Omitted, it is `"message"`, the word for a protocol frame. Given (tool calls pass
 * `"arguments"`), a value that is not an object at all reads
 * `the arguments must be a JSON object, got an array`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { TurnStartMessage } from "./schema.ts";
 * import { describeIssues } from "./issues.ts";
 * const r = TurnStartMessage.safeParse({ type: "turn.start", request_id: "1" });
 * if (!r.success) assert(describeIssues(r.error).includes("session_id"));
 * const a = z.object({ path: z.string() }).safeParse([]);
 * const want = "the arguments must be a JSON object, got an array";
 * if (!a.success) assert.equal(describeIssues(a.error, "arguments"), want);
 * ```
 */
export function describeIssues(
  error: {
    readonly issues: readonly {
      readonly path: readonly PropertyKey[];
      readonly message: string;
      readonly code?: string;
      readonly expected?: unknown;
    }[];
  },
  root?: string,
): string {
  // How a JSON value's type reads after "got", by the name zod gives it.
  const received: Record<string, string> = {
    array: "an array",
    null: "null",
    string: "a string",
    number: "a number",
    boolean: "a boolean",
    undefined: "nothing",
  };
  return error.issues.slice(0, 3).map((issue) => {
    if (issue.path.length === 0 && root !== undefined) {
      if (issue.code === "invalid_type" && issue.expected === "object") {
        // zod names the type it received only in its message.
        const type = /received (\w+)$/.exec(issue.message)?.[1];
        const got = type === undefined ? "" : `, got ${received[type] ?? type}`;
        return `the ${root} must be a JSON object${got}`;
      }
      return `"${root}": ${issue.message}`;
    }
    const path = issue.path.length ? issue.path.join(".") : "message";
    return `"${path}": ${issue.message}`;
  }).join("; ");
}
