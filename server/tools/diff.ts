/**
 * The unified diff of `edit_file`'s output; it is shared with clients, so it lives in
 * `protocol/unified_diff.ts`.
 *
 * @module
 */
export { CONTEXT_LINES, MAX_ALIGN_CELLS, unifiedDiff } from "../../protocol/unified_diff.ts";
