/**
 * The compact o200k_base counter agrees with gpt-tokenizer, and its tables are what they say.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import {
  buildO200kTables,
  gunzip,
  gzip,
  hashBytes,
  loadO200kCounter,
  O200K_TABLES,
  O200kCounter,
  packTables,
  unpackTables,
} from "../../../server/context/o200k.ts";
import { packedTables } from "../../../server/context/o200k_generate.ts";

const reference = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const counter = loadO200kCounter(); // from o200k_tables.gz, once for the file

Deno.test("the o200k counter agrees with gpt-tokenizer on any text (fast-check)", async () => {
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

Deno.test("o200k_tables.gz is what deno task o200k-tables makes of the pinned gpt-tokenizer", async () => {
  const expected = await packedTables();
  const actual = await gunzip(await Deno.readFile(O200K_TABLES));
  const digest = async (b: Uint8Array<ArrayBuffer>) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", b)).toHex();
  assert.deepEqual(
    { length: actual.length, sha256: await digest(actual) },
    { length: expected.length, sha256: await digest(expected) },
    "server/context/o200k_tables.gz is out of date: run deno task o200k-tables",
  );
});

Deno.test("the counter reads its tables from the file, with no worker; the worker's agree", async () => {
  const real = globalThis.Worker;
  // A worker made now fails the load, so a counter that comes back was read from the file.
  globalThis.Worker = class {
    constructor() {
      throw new Error("no worker in this test");
    }
  } as unknown as typeof Worker;
  let fromFile: O200kCounter;
  try {
    fromFile = await loadO200kCounter();
  } finally {
    globalThis.Worker = real;
  }
  const fromWorker = await loadO200kCounter(null);
  const text = await Deno.readTextFile(new URL(import.meta.url));
  assert.equal(fromFile.count(text), reference(text));
  assert.equal(fromWorker.count(text), reference(text));
});

Deno.test("torn o200k tables are refused with what is wrong, and the load falls back to a worker", async () => {
  const packed = packTables(buildO200kTables(["a", "b", undefined, "ab"]));
  assert.equal(new O200kCounter(unpackTables(packed)).count("abab"), 2);
  assert.throws(() => unpackTables(packed.slice(0, 5)), /torn \(no header\)/);
  assert.throws(() => unpackTables(packed.slice(0, packed.length - 1)), /torn \(\d+ bytes/);
  const bad = packed.slice();
  new DataView(bad.buffer).setUint32(8 + 4, 0xffff, true); // an offset past the bytes
  assert.throws(() => unpackTables(bad), /torn \(offset/);
  const dir = await Deno.makeTempDir({ prefix: "scv-o200k-" });
  try {
    await Deno.writeFile(`${dir}/torn.gz`, (await gzip(packed)).slice(0, 20));
    const c = await loadO200kCounter(new URL(`file://${dir}/torn.gz`));
    assert.equal(c.count("hello world"), reference("hello world"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
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
