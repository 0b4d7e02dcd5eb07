import { assertEquals } from "../support/assert.ts";
import { describeKey, type KeyEvent, KeyParser } from "../../tui/keys.ts";

const enc = new TextEncoder();

/** Joins adjacent plain text events: typed text may arrive in any number of reads. */
function merged(evs: KeyEvent[]): string[] {
  const out: KeyEvent[] = [];
  for (const ev of evs) {
    const last = out[out.length - 1];
    if (ev.type === "text" && !ev.alt && last?.type === "text" && !last.alt) {
      out[out.length - 1] = { type: "text", text: last.text + ev.text };
    } else {
      out.push(ev);
    }
  }
  return out.map(describeKey);
}

/** Parses `bytes` in one read, then with every possible split into two reads, and flushes. */
function parseAllSplits(bytes: Uint8Array): string[][] {
  const results: string[][] = [];
  for (let cut = 0; cut <= bytes.length; cut++) {
    const p = new KeyParser();
    const evs = [...p.feed(bytes.subarray(0, cut)), ...p.feed(bytes.subarray(cut)), ...p.flush()];
    results.push(merged(evs));
  }
  return results;
}

function assertDecodes(seq: string | Uint8Array, expected: string[]): void {
  const bytes = typeof seq === "string" ? enc.encode(seq) : seq;
  for (const [cut, got] of parseAllSplits(bytes).entries()) {
    assertEquals(got, expected, `split at byte ${cut} of ${JSON.stringify(seq)}`);
  }
}

const CASES: Array<[string, string, string[]]> = [
  ["enter", "\r", ["enter"]],
  ["shift+enter (kitty CSI u)", "\x1b[13;2u", ["shift+enter"]],
  ["shift+enter (xterm modifyOtherKeys)", "\x1b[27;2;13~", ["shift+enter"]],
  ["alt+enter", "\x1b\r", ["alt+enter"]],
  ["ctrl+j", "\n", ["ctrl+j"]],
  ["up", "\x1b[A", ["up"]],
  ["down", "\x1b[B", ["down"]],
  ["right", "\x1b[C", ["right"]],
  ["left", "\x1b[D", ["left"]],
  ["up in application mode", "\x1bOA", ["up"]],
  ["left in application mode", "\x1bOD", ["left"]],
  ["home (CSI H)", "\x1b[H", ["home"]],
  ["end (CSI F)", "\x1b[F", ["end"]],
  ["home (CSI 1~)", "\x1b[1~", ["home"]],
  ["end (CSI 4~)", "\x1b[4~", ["end"]],
  ["home (rxvt CSI 7~)", "\x1b[7~", ["home"]],
  ["end (rxvt CSI 8~)", "\x1b[8~", ["end"]],
  ["home (SS3 H)", "\x1bOH", ["home"]],
  ["end (SS3 F)", "\x1bOF", ["end"]],
  ["delete", "\x1b[3~", ["delete"]],
  ["page up", "\x1b[5~", ["pageup"]],
  ["ctrl+left", "\x1b[1;5D", ["ctrl+left"]],
  ["ctrl+right", "\x1b[1;5C", ["ctrl+right"]],
  ["alt+left", "\x1b[1;3D", ["alt+left"]],
  ["alt+b", "\x1bb", ["alt+text(b)"]],
  ["alt+f", "\x1bf", ["alt+text(f)"]],
  ["alt+backspace", "\x1b\x7f", ["alt+backspace"]],
  ["backspace", "\x7f", ["backspace"]],
  ["ctrl+h as backspace", "\x08", ["backspace"]],
  ["ctrl+u", "\x15", ["ctrl+u"]],
  ["ctrl+k", "\x0b", ["ctrl+k"]],
  ["ctrl+w", "\x17", ["ctrl+w"]],
  ["ctrl+a", "\x01", ["ctrl+a"]],
  ["ctrl+e", "\x05", ["ctrl+e"]],
  ["ctrl+c", "\x03", ["ctrl+c"]],
  ["ctrl+d", "\x04", ["ctrl+d"]],
  ["tab", "\t", ["tab"]],
  ["shift+tab", "\x1b[Z", ["shift+tab"]],
  ["escape alone", "\x1b", ["escape"]],
  ["plain text", "hello", ["text(hello)"]],
  ["text then enter", "hi\r", ["text(hi)", "enter"]],
  ["CJK text", "日本語", ["text(日本語)"]],
  ["emoji with a joiner", "👩‍💻", ["text(👩‍💻)"]],
  ["y for approval", "y", ["text(y)"]],
  ["bracketed paste with newlines", "\x1b[200~line one\r\nline two\x1b[201~", [
    "paste(line one\nline two)",
  ]],
  ["bracketed paste holding escape-like text", "\x1b[200~a\x1b[Ab\x1b[201~", ["paste(a\x1b[Ab)"]],
  ["keys around a paste", "x\x1b[200~p\x1b[201~\r", ["text(x)", "paste(p)", "enter"]],
];

for (const [name, seq, expected] of CASES) {
  Deno.test(`key parser decodes ${name} in one read and split across two reads`, () => {
    assertDecodes(seq, expected);
  });
}

Deno.test("key parser decodes shift+enter split across two reads", () => {
  const p = new KeyParser();
  assertEquals(p.feed(enc.encode("\x1b[13")), []);
  assertEquals(p.pending, true);
  assertEquals(p.feed(enc.encode(";2u")).map(describeKey), ["shift+enter"]);
  assertEquals(p.pending, false);
});

Deno.test("key parser holds a lone ESC until flushed, then reports Escape", () => {
  const p = new KeyParser();
  assertEquals(p.feed(enc.encode("\x1b")), []);
  assertEquals(p.pending, true);
  assertEquals(p.flush().map(describeKey), ["escape"]);
  assertEquals(p.pending, false);
});

Deno.test("key parser reports ESC ESC as Escape followed by the next key", () => {
  const p = new KeyParser();
  assertEquals(p.feed(enc.encode("\x1b\x1b[A")).map(describeKey), ["escape", "up"]);
});

Deno.test("key parser joins a UTF-8 character split inside its bytes", () => {
  const bytes = enc.encode("é日");
  const p = new KeyParser();
  const evs = [
    ...p.feed(bytes.subarray(0, 1)),
    ...p.feed(bytes.subarray(1, 3)),
    ...p.feed(bytes.subarray(3)),
  ];
  assertEquals(evs.map(describeKey).join(""), "text(é)text(日)");
});

Deno.test("key parser keeps a large paste whole across many reads without emitting keys", () => {
  const body = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\r");
  const bytes = enc.encode(`\x1b[200~${body}\x1b[201~`);
  const p = new KeyParser();
  const evs = [];
  for (let i = 0; i < bytes.length; i += 7) {
    evs.push(...p.feed(bytes.subarray(i, i + 7)));
    if (i + 7 < bytes.length) assertEquals(p.inPaste || i === 0, true);
  }
  assertEquals(evs.length, 1);
  assertEquals(evs[0]!.type, "paste");
  const paste = evs[0]!;
  assertEquals(paste.type === "paste" ? paste.text.split("\n").length : 0, 2000);
});

Deno.test("key parser decodes several keys in one read", () => {
  const p = new KeyParser();
  assertEquals(
    p.feed(enc.encode("a\x1b[Db\x03\x04")).map(describeKey),
    ["text(a)", "left", "text(b)", "ctrl+c", "ctrl+d"],
  );
});

Deno.test("key parser reports CSI I and CSI O as focus in and focus out", () => {
  const p = new KeyParser();
  const enc = new TextEncoder();
  assertEquals(p.feed(enc.encode("\x1b[Oa\x1b[I")), [
    { type: "focus", focused: false },
    { type: "text", text: "a" },
    { type: "focus", focused: true },
  ]);
});
