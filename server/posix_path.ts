/**
 * POSIX path arithmetic with `node:path/posix`'s results, in plain TypeScript.
 *
 * Why not `node:path`: importing any `node:` module makes Deno boot its Node compatibility layer,
 * ~10 ms of a `scv exec` text turn before its first request (docs/performance.md). Deno's own
 * `@std/path` lives on JSR, which this project cannot reach, and `pathe` (npm) cost more to load
 * than `node:path` did. scv runs on Linux only (bubblewrap), so only POSIX forms are needed.
 * `tests/server/posix_path_test.ts` holds every function to `node:path/posix` on generated paths.
 *
 * @module
 */

/** The separator. */
export const sep = "/";

/** Whether `p` starts at the root. */
export function isAbsolute(p: string): boolean {
  return p.startsWith("/");
}

/** The segments of `p` with `.` and empty ones dropped and `..` applied. */
function normalSegments(p: string, keepAboveRoot: boolean): string[] {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (keepAboveRoot) out.push("..");
    } else out.push(seg);
  }
  return out;
}

/** `p` with `.`, `..` and repeated separators resolved; a trailing separator is kept. */
export function normalize(p: string): string {
  if (p === "") return ".";
  const abs = isAbsolute(p);
  let s = normalSegments(p, !abs).join("/");
  if (s === "" && !abs) s = ".";
  if (s !== "" && p.endsWith("/")) s += "/";
  return abs ? "/" + s : s;
}

/** The non-empty parts joined with `/`, then normalized; `.` when there are none. */
export function join(...parts: string[]): string {
  const kept = parts.filter((p) => p !== "");
  return kept.length === 0 ? "." : normalize(kept.join("/"));
}

/**
 * The absolute path the parts name, read right to left until one is absolute; the current
 * directory (`Deno.cwd()`, which needs read permission) goes first when none is.
 */
export function resolve(...parts: string[]): string {
  let joined = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(joined); i--) {
    const part = parts[i]!;
    if (part === "") continue;
    joined = joined === "" ? part : `${part}/${joined}`;
  }
  if (!isAbsolute(joined)) joined = `${Deno.cwd()}/${joined}`;
  return "/" + normalSegments(joined, false).join("/");
}

/** The path from `from` to `to` (both resolved first); `""` when they are the same. */
export function relative(from: string, to: string): string {
  if (from === to) return "";
  const a = normalSegments(resolve(from), false);
  const b = normalSegments(resolve(to), false);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return [...Array(a.length - common).fill(".."), ...b.slice(common)].join("/");
}

/** Everything before the last segment, as `node:path` writes it. */
export function dirname(p: string): string {
  if (p === "") return ".";
  const hasRoot = p.startsWith("/");
  let end = -1;
  let inTrailingSlashes = true;
  for (let i = p.length - 1; i >= 1; i--) {
    if (p[i] === "/") {
      if (!inTrailingSlashes) {
        end = i;
        break;
      }
    } else inTrailingSlashes = false;
  }
  if (end === -1) return hasRoot ? "/" : ".";
  if (hasRoot && end === 1) return "//";
  return p.slice(0, end);
}

/** The last segment, trailing separators ignored. */
export function basename(p: string): string {
  let end = p.length;
  while (end > 0 && p[end - 1] === "/") end--;
  return p.slice(p.lastIndexOf("/", end - 1) + 1, end);
}
