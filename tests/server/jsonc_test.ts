/**
 * The JSONC reader of config files, checked against `jsonc-parser` as a reference.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse as referenceParse, type ParseError } from "jsonc-parser";
import { JsoncSyntaxError, parseJsonc } from "../../server/jsonc.ts";

Deno.test("jsonc accepts line and block comments", () => {
  assert.deepEqual(parseJsonc('// head\n{ /* a */ "a": 1 /* b\n c */ } // tail'), { a: 1 });
});

Deno.test("jsonc accepts trailing commas in objects and arrays", () => {
  assert.deepEqual(parseJsonc('{ "a": [1, 2, ], "b": { "c": 3, }, }'), { a: [1, 2], b: { c: 3 } });
});

Deno.test("jsonc keeps comment markers and commas inside strings", () => {
  assert.deepEqual(parseJsonc('{ "u": "http://x/*y*/", "q": "a\\"//,}" }'), {
    u: "http://x/*y*/",
    q: 'a"//,}',
  });
});

Deno.test("jsonc rejects an unterminated block comment with its position", () => {
  assert.throws(
    () => parseJsonc('{\n  /* open\n "a": 1 }'),
    (e: unknown) => e instanceof JsoncSyntaxError && e.line === 2 && e.column === 3,
  );
});

Deno.test("jsonc reports the line and column of a syntax error", () => {
  assert.throws(
    () => parseJsonc('{ "a": }'),
    (e: unknown) => e instanceof JsoncSyntaxError && e.line === 1 && e.column === 8,
  );
  assert.throws(
    () => parseJsonc('{\n  "a": 1\n  "b": 2\n}'),
    (e: unknown) => e instanceof JsoncSyntaxError && e.line === 3 && e.column === 3,
  );
});

Deno.test("jsonc rejects a comma with no value before it", () => {
  assert.throws(() => parseJsonc("[,]"), JsoncSyntaxError);
  assert.throws(() => parseJsonc('{ , "a": 1 }'), JsoncSyntaxError);
});

Deno.test("jsonc ignores a byte order mark", () => {
  assert.deepEqual(parseJsonc('\uFEFF{"a":1}'), { a: 1 });
});

Deno.test("jsonc agrees with jsonc-parser on commented, comma-trailing JSON (fast-check)", () => {
  const decorate = (json: string, seed: number): string => {
    // Insert comments after structural characters and trailing commas before closers.
    let out = "";
    let inString = false;
    let escaped = false;
    for (let i = 0; i < json.length; i++) {
      const c = json[i]!;
      if (inString && escaped) escaped = false;
      else if (inString && c === "\\") escaped = true;
      else if (c === '"') inString = !inString;
      if (
        !inString && (c === "}" || c === "]") && (i + seed) % 3 === 0 &&
        /[^[{,]/.test(json[i - 1] ?? "")
      ) {
        out += ",";
      }
      out += c;
      if (!inString && (c === "," || c === "{" || c === "[") && (i + seed) % 2 === 0) {
        out += (i + seed) % 4 === 0 ? " // note\n" : " /* note */ ";
      }
    }
    return out;
  };
  fc.assert(
    fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
      const text = decorate(JSON.stringify(value), seed);
      const errors: ParseError[] = [];
      const expected = referenceParse(text, errors, { allowTrailingComma: true });
      assert.equal(errors.length, 0, text);
      assert.deepEqual(parseJsonc(text), expected);
    }),
    { numRuns: 300 },
  );
});
