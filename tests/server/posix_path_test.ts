/** server/posix_path.ts gives `node:path/posix`'s results (it replaces it on the start-up path). */
import fc from "fast-check";
import posix from "node:path/posix";
import { assertEquals } from "../support/assert.ts";
import * as mine from "../../server/posix_path.ts";

// Paths built from the pieces that make path arithmetic hard: roots, repeats, dots, trailing `/`.
const piece = fc.constantFrom("", "/", "//", ".", "..", "a", "b", "...", ".a", "a.b", " ");
const aPath = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
const runs = { numRuns: 3000 };

Deno.test("normalize, isAbsolute, dirname and basename agree with node:path/posix", () => {
  fc.assert(
    fc.property(aPath, (p) => {
      assertEquals(mine.normalize(p), posix.normalize(p), `normalize(${JSON.stringify(p)})`);
      assertEquals(mine.isAbsolute(p), posix.isAbsolute(p), `isAbsolute(${JSON.stringify(p)})`);
      assertEquals(mine.dirname(p), posix.dirname(p), `dirname(${JSON.stringify(p)})`);
      assertEquals(mine.basename(p), posix.basename(p), `basename(${JSON.stringify(p)})`);
    }),
    runs,
  );
});

Deno.test("join and resolve agree with node:path/posix, the current directory included", () => {
  fc.assert(
    fc.property(fc.array(aPath, { maxLength: 4 }), (parts) => {
      assertEquals(mine.join(...parts), posix.join(...parts), `join(${JSON.stringify(parts)})`);
      assertEquals(
        mine.resolve(...parts),
        posix.resolve(...parts),
        `resolve(${JSON.stringify(parts)})`,
      );
    }),
    runs,
  );
});

Deno.test("relative agrees with node:path/posix, from either side and between the same path", () => {
  fc.assert(
    fc.property(aPath, aPath, (from, to) => {
      assertEquals(
        mine.relative(from, to),
        posix.relative(from, to),
        `relative(${JSON.stringify(from)}, ${JSON.stringify(to)})`,
      );
    }),
    runs,
  );
  assertEquals(mine.relative("/a/b", "/a/b/"), "");
  assertEquals(mine.relative("/", "/x/y"), "x/y");
  assertEquals(mine.relative("/x/y", "/"), "../..");
  assertEquals(mine.sep, posix.sep);
});
