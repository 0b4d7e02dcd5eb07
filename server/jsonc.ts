import { errorText } from "./error_text.ts";
/**
 * JSONC (JSON with comments and trailing commas) for config files.
 *
 * Why not `jsonc-parser`: its published UMD build goes through Deno's CommonJS loader, which
 * costs 60-80 ms on the server's start path (the budget is 50 ms in all), and its ESM build uses
 * extension-less imports that Deno cannot resolve. JSONC is JSON plus two things, so this file
 * blanks comments and trailing commas out (keeping every offset) and lets `JSON.parse` do the
 * rest; errors carry the line and column.
 *
 * @module
 */

/** A JSONC text that does not parse; `line` and `column` are 1-based. */
export class JsoncSyntaxError extends SyntaxError {
  /** 1-based line of the error. */
  readonly line: number;
  /** 1-based column of the error. */
  readonly column: number;
  /** Builds the error for a position. */
  constructor(detail: string, line: number, column: number) {
    super(`${detail} at line ${line}, column ${column}`);
    this.name = "JsoncSyntaxError";
    this.line = line;
    this.column = column;
  }
}

function position(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return [line, offset - before.lastIndexOf("\n")];
}

/** Replaces comments and trailing commas with spaces; newlines are kept so positions hold. */
function blankOut(text: string): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  let i = 0;
  let lastComma = -1; // offset of a comma after a value, not yet followed by another value
  let afterValue = false; // the last significant character ended a value
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      lastComma = -1;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      afterValue = true;
    } else if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) {
        const [line, column] = position(text, i);
        throw new JsoncSyntaxError("Unterminated block comment", line, column);
      }
      blank(i, end + 2);
      i = end + 2;
    } else if (c === ",") {
      // Only a comma after a value may be trailing; "[,]" stays an error for JSON.parse.
      lastComma = afterValue ? i : -1;
      afterValue = false;
      i++;
    } else if (c === "}" || c === "]") {
      if (lastComma !== -1) out[lastComma] = " ";
      lastComma = -1;
      afterValue = true;
      i++;
    } else {
      if (!/\s/.test(c)) {
        lastComma = -1;
        afterValue = c !== "[" && c !== "{" && c !== ":";
      }
      i++;
    }
  }
  return out.join("");
}

/**
 * Parses JSONC text: `//` and `/* *\/` comments and trailing commas are allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonc } from "./jsonc.ts";
 * assert.deepEqual(parseJsonc('{ "a": [1, 2,], // note\n }'), { a: [1, 2] });
 * ```
 */
export function parseJsonc(text: string): unknown {
  const json = blankOut(text.charCodeAt(0) === 0xfeff ? " " + text.slice(1) : text);
  try {
    return JSON.parse(json);
  } catch (e) {
    const message = errorText(e);
    const [line, column] = position(text, Math.min(locateError(json), text.length));
    const detail = message.replace(/ in JSON at position.*$/, "").replace(
      /, ".*" is not valid JSON$/s,
      "",
    )
      .trim();
    throw new JsoncSyntaxError(detail || "Invalid JSON", line, column);
  }
}

/** The offset where a JSON text stops being valid (only called once JSON.parse failed). */
function locateError(json: string): number {
  let i = 0;
  const ws = () => {
    while (i < json.length && " \t\r\n".includes(json[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (json.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    i++;
    while (i < json.length && json[i] !== '"') {
      if (json[i]! < " ") fail();
      i += json[i] === "\\" ? 2 : 1;
    }
    if (i >= json.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = json[i];
    if (c === "{") {
      i++;
      ws();
      if (json[i] === "}") return void i++;
      while (true) {
        ws();
        if (json[i] !== '"') fail();
        string();
        ws();
        if (json[i] !== ":") fail();
        i++;
        value();
        ws();
        if (json[i] === ",") i++;
        else if (json[i] === "}") return void i++;
        else fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (json[i] === "]") return void i++;
      while (true) {
        value();
        ws();
        if (json[i] === ",") i++;
        else if (json[i] === "]") return void i++;
        else fail();
      }
    } else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(json.slice(i));
      if (!m) fail();
      i += m![0].length;
    }
  };
  try {
    value();
    ws();
    return i;
  } catch (at) {
    return typeof at === "number" ? at : 0;
  }
}
