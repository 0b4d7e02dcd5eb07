/** Unit tests of splitting `<think>...</think>` reasoning from streamed content. */
import { assertEquals } from "../../support/assert.ts";
import { type ThinkPiece, ThinkSplitter } from "../../../server/provider/think_tags.ts";

function split(pieces: string[]): ThinkPiece[] {
  const s = new ThinkSplitter();
  const out = [...pieces.flatMap((p) => s.push(p)), ...s.end()];
  // Adjacent pieces of one kind are one stream: compare their concatenation.
  const merged: ThinkPiece[] = [];
  for (const p of out) {
    const last = merged.at(-1);
    if (last && last.kind === p.kind) last.text += p.text;
    else merged.push({ ...p });
  }
  return merged;
}

Deno.test("a leading think block is reasoning and the rest is the answer, however it is split", () => {
  const text = "\n<think>\nstep one\nstep two\n</think>\n\nThe answer.";
  const expected: ThinkPiece[] = [
    { kind: "reasoning", text: "\nstep one\nstep two\n" },
    { kind: "text", text: "The answer." },
  ];
  assertEquals(split([text]), expected);
  assertEquals(split([...text]), expected, "one character at a time");
  for (let i = 1; i < text.length; i++) {
    assertEquals(split([text.slice(0, i), text.slice(i)]), expected, `cut at ${i}`);
  }
});

Deno.test("content that does not start with the tag is all answer, even when it mentions it", () => {
  assertEquals(split(["Use <think> tags ", "like </think> this"]), [
    { kind: "text", text: "Use <think> tags like </think> this" },
  ]);
  assertEquals(split(["<thin", "g>"]), [{ kind: "text", text: "<thing>" }]);
});

Deno.test("an unclosed think block at the end is all reasoning", () => {
  assertEquals(split(["<think>still thinking </th"]), [{
    kind: "reasoning",
    text: "still thinking </th",
  }]);
});

Deno.test("a think block with no answer after it leaves no empty text", () => {
  assertEquals(split(["<think>x</think>\n\n"]), [{ kind: "reasoning", text: "x" }]);
});

Deno.test("a short answer that is a prefix of the tag is still the answer at the end", () => {
  assertEquals(split(["<th"]), [{ kind: "text", text: "<th" }]);
});
