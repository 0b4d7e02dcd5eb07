/**
 * Glob patterns (`**`, `*`, `?`, `[abc]`, `{a,b}`) as regular expressions over `/`-separated
 * relative paths. `*` and `?` never cross a `/`; `**` as a whole segment matches any number
 * of directories. Dot files match like any other: .gitignore, not the leading dot, decides
 * what is hidden.
 *
 * @module
 */

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

function escape(s: string): string {
  return s.replace(REGEX_SPECIAL, "\\$&");
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(g: string, open: number): number {
  let depth = 0;
  for (let i = open; i < g.length; i++) {
    if (g[i] === "\\") i++;
    else if (g[i] === "{") depth++;
    else if (g[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Splits the inside of a brace group at its top-level commas. */
function alternatives(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") i++;
    else if (body[i] === "{") depth++;
    else if (body[i] === "}") depth--;
    else if (body[i] === "," && depth === 0) {
      out.push(body.slice(from, i));
      from = i + 1;
    }
  }
  out.push(body.slice(from));
  return out;
}

function translate(g: string): string {
  let out = "";
  let i = 0;
  while (i < g.length) {
    const c = g[i]!;
    if (c === "*") {
      let j = i;
      while (g[j] === "*") j++;
      const wholeSegment = (i === 0 || g[i - 1] === "/") && (j === g.length || g[j] === "/");
      if (j - i >= 2 && wholeSegment) {
        if (g[j] === "/") {
          out += "(?:[^/]*/)*";
          i = j + 1;
        } else {
          out += ".*";
          i = j;
        }
      } else {
        out += "[^/]*";
        i = j;
      }
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      let j = i + 1;
      if (g[j] === "!" || g[j] === "^") j++;
      if (g[j] === "]") j++;
      while (j < g.length && g[j] !== "]") j++;
      if (j >= g.length) {
        out += "\\[";
        i++;
        continue;
      }
      let body = g.slice(i + 1, j);
      const negated = body[0] === "!" || body[0] === "^";
      if (negated) body = body.slice(1);
      body = body.replace(/[\\\]^]/g, "\\$&");
      out += negated ? `[^/${body}]` : `[${body}]`;
      i = j + 1;
    } else if (c === "{") {
      const close = closingBrace(g, i);
      if (close === -1) {
        out += "\\{";
        i++;
        continue;
      }
      out += `(?:${alternatives(g.slice(i + 1, close)).map(translate).join("|")})`;
      i = close + 1;
    } else if (c === "\\" && i + 1 < g.length) {
      out += escape(g[i + 1]!);
      i += 2;
    } else {
      out += escape(c);
      i++;
    }
  }
  return out;
}

/**
 * The regular expression matching exactly the paths `glob` matches. Throws `SyntaxError` for
 * a pattern that has no such expression (a character range out of order, `[z-a]`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globToRegExp } from "./glob_pattern.ts";
 * const re = globToRegExp("src/**\/*.{ts,tsx}");
 * assert(re.test("src/a.ts") && re.test("src/x/y/b.tsx") && !re.test("lib/a.ts"));
 * ```
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${translate(glob)}$`);
}

/** Whether a segment of a glob pattern has special characters. */
function isMagic(segment: string): boolean {
  return /[*?[{\\]/.test(segment);
}

/**
 * The directory a walk for `glob` can start in (its leading plain segments, never the last
 * one) and how many segments deep a match can be (`Infinity` with `**`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globScope } from "./glob_pattern.ts";
 * const s = globScope("src/tools/*.ts");
 * assert(s.base === "src/tools" && s.depth === 3);
 * ```
 */
export function globScope(glob: string): { base: string; depth: number } {
  const segments = glob.split("/");
  const plain: string[] = [];
  for (const s of segments.slice(0, -1)) {
    if (isMagic(s)) break;
    plain.push(s);
  }
  // A brace group may hide a `/`, which makes the segment count meaningless.
  const unbounded = glob.includes("**") || /\{[^}]*\//.test(glob);
  return { base: plain.join("/"), depth: unbounded ? Infinity : segments.length };
}
