/**
 * Plain-text screen snapshots: expected screens live in `snapshots/NAME.txt`; run with
 * `UPDATE_SNAPSHOTS=1` to write them after a deliberate change, then review the diff.
 *
 * @module
 */
import stripAnsi from "strip-ansi";
import { assertEquals } from "../support/assert.ts";

const DIR = new URL("./snapshots/", import.meta.url);

/**
 * Compares lines (escape codes removed, trailing blanks trimmed) with the stored snapshot.
 */
export async function assertSnapshot(name: string, lines: readonly string[]): Promise<void> {
  const text = lines.map((l) => stripAnsi(l).replace(/\s+$/, "")).join("\n") + "\n";
  const file = new URL(`${name}.txt`, DIR);
  if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") {
    await Deno.mkdir(DIR, { recursive: true });
    await Deno.writeTextFile(file, text);
    return;
  }
  let expected: string;
  try {
    expected = await Deno.readTextFile(file);
  } catch {
    throw new Error(`Missing snapshot ${name}.txt; run with UPDATE_SNAPSHOTS=1 to create it`);
  }
  assertEquals(text, expected, `snapshot ${name} differs`);
}
