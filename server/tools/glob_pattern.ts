/**
 * Glob patterns (`**`, `*`, `?`, `[abc]`, `{a,b}`) matched against `/`-separated relative
 * paths. `*`, `?` and classes never cross a `/`; `**` as a whole segment matches any number of
 * directories (at the end of a pattern, one or more segments). Dot files match like any other:
 * .gitignore, not the leading dot, decides what is hidden.
 *
 * Matching takes time proportional to the pattern's length times the path's, whatever the
 * pattern: braces are expanded up front (at most `MAX_GLOB_ALTERNATIVES` patterns), repeated
 * `**` segments are collapsed, and both `**` over segments and `*` within a segment use the
 * greedy two-pointer wildcard algorithm, which never backtracks more than one star. A
 * backtracking regular expression would take exponential time on `*a*a*a*a*b` against a long
 * run of `a`.
 *
 * @module
 */

/** Patterns a glob may expand to through its braces; more is refused rather than slow. */
export const MAX_GLOB_ALTERNATIVES = 1024;

/** One character of a segment pattern: `*` (any run), or a test for a single character. */
type CharToken = "*" | ((c: string) => boolean);
/** One segment of a pattern: `**` (any run of segments), or a pattern for one segment. */
type Segment = "**" | CharToken[];

/** Tests whether a relative path matches a glob. */
export type GlobMatcher = (path: string) => boolean;

/**
 * End index (exclusive) of the character class opening at `open`, or -1 if it has no `]`.
 * A `]` right after `[`, `[!` or `[^` belongs to the class.
 */
function classEnd(g: string, open: number): number {
  let j = open + 1;
  if (g[j] === "!" || g[j] === "^") j++;
  if (g[j] === "]") j++;
  while (j < g.length && g[j] !== "]") j++;
  return j < g.length ? j + 1 : -1;
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(g: string, open: number): number {
  let depth = 0;
  for (let i = open; i < g.length; i++) {
    const c = g[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = classEnd(g, i);
      if (end !== -1) i = end - 1;
    } else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Splits the inside of a brace group at its top-level commas. */
function alternatives(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = classEnd(body, i);
      if (end !== -1) i = end - 1;
    } else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(body.slice(from, i));
      from = i + 1;
    }
  }
  out.push(body.slice(from));
  return out;
}

/** The first brace group of `g` that has a closing brace, as [open, close], or undefined. */
function firstBraceGroup(g: string): [number, number] | undefined {
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = classEnd(g, i);
      if (end !== -1) i = end - 1;
    } else if (c === "{") {
      const close = closingBrace(g, i);
      if (close !== -1) return [i, close];
      // An unclosed `{` is a literal character.
    }
  }
  return undefined;
}

/** Every brace-free pattern `glob` stands for, in order; throws past the limit. */
function expandBraces(glob: string): string[] {
  const done: string[] = [];
  const pending = [glob];
  while (pending.length > 0) {
    const g = pending.pop()!;
    const group = firstBraceGroup(g);
    if (group === undefined) {
      done.push(g);
    } else {
      const [open, close] = group;
      const head = g.slice(0, open);
      const tail = g.slice(close + 1);
      const alts = alternatives(g.slice(open + 1, close));
      // Reversed onto the stack so that the alternatives come out in order.
      for (let k = alts.length - 1; k >= 0; k--) pending.push(head + alts[k] + tail);
    }
    if (done.length + pending.length > MAX_GLOB_ALTERNATIVES) {
      throw new SyntaxError(
        `its braces expand to more than ${MAX_GLOB_ALTERNATIVES} patterns`,
      );
    }
  }
  return done;
}

/** The test for a character class body (between `[` and `]`, negation already removed). */
function classTest(body: string, negated: boolean): (c: string) => boolean {
  const chars = Array.from(body);
  const ranges: [number, number][] = [];
  for (let i = 0; i < chars.length; i++) {
    const lo = chars[i]!.codePointAt(0)!;
    if (chars[i + 1] === "-" && i + 2 < chars.length) {
      const hi = chars[i + 2]!.codePointAt(0)!;
      if (hi < lo) {
        throw new SyntaxError(`range out of order in character class "[${body}]"`);
      }
      ranges.push([lo, hi]);
      i += 2;
    } else {
      ranges.push([lo, lo]);
    }
  }
  return (c) => {
    const code = c.codePointAt(0)!;
    const hit = ranges.some(([lo, hi]) => code >= lo && code <= hi);
    return hit !== negated;
  };
}

/** Parses one segment (no `/`) of a brace-free pattern. */
function parseSegment(s: string): Segment {
  if (/^\*\*+$/.test(s)) return "**";
  const tokens: CharToken[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "*") {
      if (tokens.at(-1) !== "*") tokens.push("*");
      i++;
    } else if (c === "?") {
      tokens.push(() => true);
      i++;
    } else if (c === "[" && classEnd(s, i) !== -1) {
      const end = classEnd(s, i);
      let body = s.slice(i + 1, end - 1);
      const negated = body[0] === "!" || body[0] === "^";
      if (negated) body = body.slice(1);
      tokens.push(classTest(body, negated));
      i = end;
    } else {
      // `\x` is a literal x; anything else stands for itself. Whole code points, not halves.
      if (c === "\\" && i + 1 < s.length) i++;
      const ch = String.fromCodePoint(s.codePointAt(i)!);
      tokens.push((t) => t === ch);
      i += ch.length;
    }
  }
  return tokens;
}

/** Splits a brace-free pattern at `/` (an escaped `\/` too) into segments. */
function splitSegments(g: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < g.length; i++) {
    if (g[i] === "\\" && g[i + 1] === "/") {
      out.push(g.slice(from, i));
      from = i + 2;
      i++;
    } else if (g[i] === "\\") i++;
    else if (g[i] === "/") {
      out.push(g.slice(from, i));
      from = i + 1;
    }
  }
  out.push(g.slice(from));
  return out;
}

/** The segments of one brace-free pattern, with runs of `**` collapsed. */
function compile(g: string): Segment[] {
  const segments: Segment[] = [];
  for (const s of splitSegments(g)) {
    const seg = parseSegment(s);
    if (seg === "**" && segments.at(-1) === "**") continue;
    segments.push(seg);
  }
  // A trailing `**` stands for what is below a directory: one segment at least.
  if (segments.at(-1) === "**") segments.splice(segments.length - 1, 0, ["*"]);
  return segments;
}

/**
 * The greedy two-pointer wildcard match: `pattern` items are the star or tests of one
 * element each; on a mismatch only the last star takes one more element. O(|pattern|·|text|).
 */
function wildcard<P, T>(
  pattern: readonly P[],
  text: readonly T[],
  isStar: (p: P) => boolean,
  test: (p: P, t: T) => boolean,
): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    if (p < pattern.length && isStar(pattern[p]!)) {
      star = p++;
      starText = t;
    } else if (p < pattern.length && test(pattern[p]!, text[t]!)) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1;
      t = ++starText;
    } else {
      return false;
    }
  }
  while (p < pattern.length && isStar(pattern[p]!)) p++;
  return p === pattern.length;
}

function matchSegment(tokens: readonly CharToken[], name: string): boolean {
  return wildcard(tokens, Array.from(name), (k) => k === "*", (k, c) => k !== "*" && k(c));
}

/**
 * A matcher for exactly the paths `glob` matches. Throws `SyntaxError` for a pattern that
 * cannot be matched (a character range out of order, `[z-a]`, or braces expanding to more
 * than `MAX_GLOB_ALTERNATIVES` patterns).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globMatcher } from "./glob_pattern.ts";
 * const m = globMatcher("src/**\/*.{ts,tsx}");
 * assert(m("src/a.ts") && m("src/x/y/b.tsx") && !m("lib/a.ts"));
 * ```
 */
export function globMatcher(glob: string): GlobMatcher {
  const patterns = expandBraces(glob).map(compile);
  return (p) => {
    const parts = p.split("/");
    return patterns.some((segments) =>
      wildcard(segments, parts, (s) => s === "**", (s, part) => s !== "**" && matchSegment(s, part))
    );
  };
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
