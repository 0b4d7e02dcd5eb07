/**
 * protocol/zod/zod.js is zod as deno.json pins it, joined into one module by `deno bundle`
 * (deno task bundle-zod), and it behaves as zod: the tables parse through it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { bundleText, ZOD } from "../../protocol/zod/generate.ts";
import * as z from "zod";

const BUNDLE = new URL("../../protocol/zod/zod.js", import.meta.url);

Deno.test(`protocol/zod/zod.js is what deno bundle makes of ${ZOD} (deno task bundle-zod)`, async () => {
  const expected = await bundleText();
  const actual = await Deno.readTextFile(BUNDLE);
  // Compared by length and hash first: a failure should not print 760 KB twice.
  const digest = async (s: string) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))).toHex();
  assertEquals(
    { length: actual.length, sha256: await digest(actual) },
    { length: expected.length, sha256: await digest(expected) },
    "protocol/zod/zod.js is out of date: run deno task bundle-zod",
  );
});

Deno.test("the bundle's types are npm zod's, and deno.json's zod is the bundle", async () => {
  const text = await Deno.readTextFile(BUNDLE);
  assert(text.startsWith(`// @ts-self-types="${ZOD}"\n`));
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assertEquals(config.imports.zod, "./protocol/zod/zod.js");
  // The module this test imports as "zod" is the bundle: the same functions as importing it by
  // path (`import * as z` names the module itself, as the sources import it).
  const byPath = await import(BUNDLE.href);
  assert(byPath.object === z.object);
});

Deno.test("zod from the bundle parses, refuses with issues, and derives JSON Schema", () => {
  const schema = z.object({ name: z.string().min(1), n: z.number().int().optional() });
  assertEquals(schema.safeParse({ name: "a", n: 2 }), { success: true, data: { name: "a", n: 2 } });
  const bad = schema.safeParse({ name: "", n: 1.5 });
  assert(!bad.success);
  assertEquals(bad.error.issues.map((i) => i.path.join(".")).sort(), ["n", "name"]);
  assertEquals(z.toJSONSchema(schema).required, ["name"]);
});
