/**
 * The workspace a session names (Peon `session.start`, ACP `session/new` and `session/load`):
 * an absolute path to an existing directory, made canonical, or a message saying what is wrong
 * with it (the request's `invalid_request` or invalid-params error); and what lies inside one.
 *
 * @module
 */
import { clip, errorText, quoteInput } from "./error_text.ts";

/** The canonical workspace, or why there is none. */
export type WorkspaceDir = { ok: true; path: string } | { ok: false; message: string };

/**
 * Checks and canonicalises a session's `cwd`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workspaceDir } from "./workspace_dir.ts";
 * assert.deepEqual(await workspaceDir("rel"), {
 *   ok: false,
 *   message: 'cwd must be an absolute path, got "rel"',
 * });
 * ```
 */
export async function workspaceDir(cwd: string): Promise<WorkspaceDir> {
  if (!cwd.startsWith("/")) {
    return { ok: false, message: `cwd must be an absolute path, got ${quoteInput(cwd)}` };
  }
  try {
    const path = await Deno.realPath(cwd);
    if (!(await Deno.stat(path)).isDirectory) {
      return { ok: false, message: `cwd is not a directory: ${quoteInput(cwd)}` };
    }
    return { ok: true, path };
  } catch (e) {
    const message = e instanceof Deno.errors.NotFound
      ? `cwd does not exist: ${quoteInput(cwd)}`
      : e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied
      ? `cannot read cwd ${quoteInput(cwd)}: scv was started without read permission for it ` +
        `(--allow-read)`
      : `cannot open cwd ${quoteInput(cwd)}: ${clip(errorText(e), 200)}`;
    return { ok: false, message };
  }
}

/**
 * Whether `p` is `root` or below it; both must be physical paths.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isInside } from "./workspace_dir.ts";
 * assert(isInside("/ws", "/ws/a") && !isInside("/ws", "/wsx"));
 * ```
 */
export function isInside(root: string, p: string): boolean {
  if (p === root) return true;
  return p.startsWith(root.endsWith("/") ? root : `${root}/`);
}
