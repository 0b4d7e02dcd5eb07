/**
 * The compact o200k_base counter agrees with gpt-tokenizer, and its tables are what they say.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import {
  buildO200kTables,
  hashBytes,
  loadO200kCounter,
  O200kCounter,
} from "../../../server/context/o200k.ts";

const reference = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const counter = loadO200kCounter(); // one worker build for the file

Deno.test("the worker-built o200k counter agrees with gpt-tokenizer on any text (fast-check)", async () => {
  const c = await counter;
  const words = fc.constantFrom(
    "the",
    " quick",
    "Brown",
    "fox's",
    "  ",
    "\n\n",
    "\t",
    "1234567",
    "функция",
    "日本語のテキスト",
    "🙂",
    "<|endoftext|>",
    "const x = {a: 1};",
    "https://example.com/a?b=c",
    "naïve",
    "'ll",
    "\r\n",
  );
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 200 }),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.array(words, { maxLength: 30 }).map((w) => w.join("")),
  );
  fc.assert(
    fc.property(text, (t) => assert.equal(c.count(t), reference(t), JSON.stringify(t))),
    { numRuns: 1500 },
  );
});

Deno.test("the o200k counter agrees with gpt-tokenizer on the repository's own sources", async () => {
  const c = await counter;
  for (const file of ["README.md", "server/context/tokens.ts", "deno.json"]) {
    const text = await Deno.readTextFile(new URL(`../../../${file}`, import.meta.url));
    assert.equal(c.count(text), reference(text), file);
  }
});

Deno.test("the o200k tables hold every rank at its bytes", () => {
  const ranks = bpeRanks as readonly (string | readonly number[] | undefined)[];
  const tables = buildO200kTables(ranks);
  const encoder = new TextEncoder();
  const mask = tables.slots.length - 1;
  let checked = 0;
  for (let r = 0; r < ranks.length; r += 97) {
    const token = ranks[r];
    if (token === undefined) continue;
    const bytes = typeof token === "string" ? encoder.encode(token) : Uint8Array.from(token);
    assert.deepEqual(tables.bytes.subarray(tables.offsets[r]!, tables.offsets[r + 1]!), bytes);
    let slot = hashBytes(bytes, 0, bytes.length) & mask;
    while (tables.slots[slot] !== r + 1) {
      assert.notEqual(tables.slots[slot], 0, `rank ${r} is in the hash table`);
      slot = (slot + 1) & mask;
    }
    checked++;
  }
  assert.ok(checked > 1000);
  // Every single byte is a token, so any text can be counted.
  const c = new O200kCounter(tables);
  assert.equal(c.count("\u00ff"), reference("\u00ff"));
});

Deno.test("without read access to its worker the o200k counter is built on the main thread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scv-o200k-" });
  try {
    const script = `${dir}/probe.ts`;
    const tokens = new URL("../../../server/context/tokens.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { TokenCounter } from "${tokens}";\n` +
        `const c = await TokenCounter.create("gpt-4o");\n` +
        `console.log(JSON.stringify([c.tokenizer, c.countText("hello world, 日本語")]));\n`,
    );
    const config = new URL("../../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--config=${config}`, `--allow-read=${dir}`, script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.deepEqual(
      JSON.parse(new TextDecoder().decode(out.stdout)),
      ["o200k_base", reference("hello world, 日本語")],
    );
    assert.doesNotMatch(stderr, /error/i, "no worker error reaches stderr");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
