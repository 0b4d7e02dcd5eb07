import { errorText } from "../error_text.ts";
/**
 * Turns the errors of file and process operations into messages a model (and the user reading
 * over its shoulder) can act on. Deno's own permission errors name a flag but not what scv was
 * trying to do; the operating system's name a syscall but not the file.
 *
 * @module
 */

/**
 * The message for a missing Deno permission: which flag scv lacks and what therefore failed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingPermission } from "./permission.ts";
 * assert(
 *   missingPermission("--allow-read", `it cannot read "a.txt"`) ===
 *     `Permission denied: scv was started without --allow-read, so it cannot read "a.txt"`,
 * );
 * ```
 */
export function missingPermission(flag: string, consequence: string): string {
  return `Permission denied: scv was started without ${flag}, so ${consequence}`;
}

/** The `--allow-*` flag a `Deno.errors.NotCapable` asks for, or `fallback`. */
function flagOf(err: Error, fallback: string): string {
  return /--allow-[a-z]+/.exec(err.message)?.[0] ?? fallback;
}

/** What went wrong in words, for one failed file operation. */
export interface FileErrorContext {
  /** The verb of the operation: `read`, `write`, `edit`, `search`. */
  verb: string;
  /** The path as the model gave it. */
  path: string;
  /** The flag the operation needs when Deno reports no more specific one. */
  flag: string;
}

/**
 * The message for an error thrown by a file operation, by the error's meaning.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileErrorMessage } from "./permission.ts";
 * const msg = fileErrorMessage(new Deno.errors.NotFound("x"), {
 *   verb: "read", path: "a.txt", flag: "--allow-read",
 * });
 * assert(msg === `Cannot read "a.txt": no such file or directory`);
 * ```
 */
export function fileErrorMessage(err: unknown, ctx: FileErrorContext): string {
  const what = `${ctx.verb} "${ctx.path}"`;
  // A bound of the tools themselves (a path too deep): its message already says it all.
  if (err instanceof RangeError) return err.message;
  if (err instanceof Deno.errors.NotCapable) {
    return missingPermission(flagOf(err, ctx.flag), `it cannot ${what}`);
  }
  if (err instanceof Deno.errors.NotFound) return `Cannot ${what}: no such file or directory`;
  if (err instanceof Deno.errors.PermissionDenied) {
    return `Cannot ${what}: permission denied by the operating system`;
  }
  if (err instanceof Deno.errors.IsADirectory) return `Cannot ${what}: it is a directory`;
  if (err instanceof Deno.errors.NotADirectory) {
    return `Cannot ${what}: a parent of the path is not a directory`;
  }
  if (err instanceof Deno.errors.FilesystemLoop) return `Cannot ${what}: too many symbolic links`;
  if (err instanceof Deno.errors.AlreadyExists) return `Cannot ${what}: it already exists`;
  const detail = errorText(err);
  return `Cannot ${what}: ${detail}`;
}
