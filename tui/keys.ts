/**
 * A pure parser from terminal input bytes to key events. It is stateful across reads: a UTF-8
 * character, an escape sequence or a bracketed paste split over several chunks is decoded once
 * it is complete. A lone ESC is ambiguous (the Escape key, or the start of a sequence still in
 * flight); the parser holds it until the next chunk or until {@link KeyParser.flush} is called
 * after a short timeout.
 *
 * @module
 */

/** Names of the non-character keys the TUI understands. */
export type KeyName =
  | "enter"
  | "tab"
  | "backspace"
  | "delete"
  | "escape"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "pageup"
  | "pagedown"
  | "insert"
  | "unknown";

/** One decoded input event. */
export type KeyEvent =
  /** Printable text typed by the user (one or more characters, no control characters). */
  | { type: "text"; text: string; alt?: boolean }
  /** A named key, or `ctrl` with a letter name such as `"c"`. */
  | { type: "key"; name: KeyName | string; ctrl: boolean; alt: boolean; shift: boolean }
  /**
   * Text received inside bracketed-paste markers, with line endings normalised to `\n`. It may
   * hold any other byte, escape sequences included: the composer cleans it on insert.
   */
  | { type: "paste"; text: string }
  /** The terminal gained (`CSI I`) or lost (`CSI O`) focus, reported after `CSI ? 1004 h`. */
  | { type: "focus"; focused: boolean };

const ESC = "\x1b";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

function key(
  name: string,
  mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {},
): KeyEvent {
  return {
    type: "key",
    name,
    ctrl: mods.ctrl ?? false,
    alt: mods.alt ?? false,
    shift: mods.shift ?? false,
  };
}

/** Decodes xterm's modifier parameter (1 + bitmask of shift=1, alt=2, ctrl=4). */
function modifiers(param: number | undefined): { shift: boolean; alt: boolean; ctrl: boolean } {
  const m = param === undefined || !Number.isFinite(param) ? 0 : Math.max(0, param - 1);
  return { shift: (m & 1) !== 0, alt: (m & 2) !== 0, ctrl: (m & 4) !== 0 };
}

const CSI_LETTER_KEYS: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
};

const CSI_TILDE_KEYS: Record<number, KeyName> = {
  1: "home",
  2: "insert",
  3: "delete",
  4: "end",
  5: "pageup",
  6: "pagedown",
  7: "home",
  8: "end",
};

/** Maps a control byte (0x00–0x1f, 0x7f) to its key event. */
function controlKey(code: number, alt: boolean): KeyEvent {
  switch (code) {
    case 0x0d:
      return key("enter", { alt });
    case 0x0a:
      return key("j", { ctrl: true, alt }); // Ctrl+J (line feed)
    case 0x09:
      return key("tab", { alt });
    case 0x7f:
    case 0x08:
      return key("backspace", { alt });
    case 0x1b:
      return key("escape", { alt });
    case 0x00:
      return key("space", { ctrl: true, alt });
    default:
      if (code >= 0x01 && code <= 0x1a) {
        return key(String.fromCharCode(code + 0x60), { ctrl: true, alt });
      }
      return key("unknown", { ctrl: true, alt });
  }
}

/** Decodes one complete CSI sequence body: parameters and final byte. */
function decodeCsi(params: string, final: string): KeyEvent {
  if (params === "" && (final === "I" || final === "O")) {
    return { type: "focus", focused: final === "I" };
  }
  const parts = params.split(";").map((p) => (p === "" ? undefined : Number(p.split(":")[0])));
  if (final === "~") {
    const code = parts[0] ?? 0;
    const mods = modifiers(parts[1]);
    if (code === 27 && parts.length >= 3) {
      // xterm modifyOtherKeys: CSI 27 ; mods ; code ~
      return codepointKey(parts[2] ?? 0, modifiers(parts[1]));
    }
    const name = CSI_TILDE_KEYS[code];
    return name ? key(name, mods) : key("unknown", mods);
  }
  if (final === "u") {
    // kitty keyboard protocol / fixterms: CSI code ; mods u
    return codepointKey(parts[0] ?? 0, modifiers(parts[1]));
  }
  if (final === "Z") return key("tab", { shift: true });
  const name = CSI_LETTER_KEYS[final];
  if (name) return key(name, modifiers(parts[1]));
  return key("unknown");
}

function codepointKey(
  code: number,
  mods: { shift: boolean; alt: boolean; ctrl: boolean },
): KeyEvent {
  if (code === 13) return key("enter", mods);
  if (code === 9) return key("tab", mods);
  if (code === 27) return key("escape", mods);
  if (code === 127 || code === 8) return key("backspace", mods);
  if (code >= 32 && code <= 0x10ffff) {
    const ch = String.fromCodePoint(code);
    if (mods.ctrl) return key(ch.toLowerCase(), mods);
    if (mods.alt) return { type: "text", text: mods.shift ? ch.toUpperCase() : ch, alt: true };
    return { type: "text", text: mods.shift ? ch.toUpperCase() : ch };
  }
  return key("unknown", mods);
}

/** The outcome of trying to decode an escape sequence at the start of the buffer. */
type EscapeResult = { event: KeyEvent; length: number } | "incomplete";

/** Decodes the escape sequence at `buf[0]` (which is ESC). */
function decodeEscape(buf: string): EscapeResult {
  if (buf.length < 2) return "incomplete";
  const second = buf[1]!;
  if (second === "[") {
    // CSI: parameters 0x30–0x3f, intermediates 0x20–0x2f, final 0x40–0x7e
    let i = 2;
    while (i < buf.length) {
      const c = buf.charCodeAt(i);
      if (c >= 0x40 && c <= 0x7e) break;
      if (c < 0x20 || c > 0x3f) {
        // Not a valid CSI: treat ESC as Alt+[ and go on.
        return { event: { type: "text", text: "[", alt: true }, length: 2 };
      }
      i++;
    }
    if (i >= buf.length) return "incomplete";
    const params = buf.slice(2, i);
    const final = buf[i]!;
    // Old rxvt-style modifier finals are rare; treat private-marker sequences as unknown.
    return { event: decodeCsi(params.replace(/^[<=>?]/, ""), final), length: i + 1 };
  }
  if (second === "O") {
    if (buf.length < 3) return "incomplete";
    const final = buf[2]!;
    const name = CSI_LETTER_KEYS[final];
    if (name) return { event: key(name), length: 3 };
    if (final === "M") return { event: key("enter"), length: 3 }; // keypad Enter
    return { event: key("unknown"), length: 3 };
  }
  if (second === ESC) {
    // ESC ESC: the first one is a plain Escape; the second is decoded on its own.
    return { event: key("escape"), length: 1 };
  }
  const code = second.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return { event: controlKey(code, true), length: 2 };
  const ch = String.fromCodePoint(code);
  return { event: { type: "text", text: ch, alt: true }, length: ch.length + 1 };
}

/**
 * Turns raw terminal input into {@link KeyEvent}s. Feed every chunk read from the terminal;
 * call {@link KeyParser.flush} when no byte arrived for a short while to release a lone ESC.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KeyParser } from "./keys.ts";
 * const p = new KeyParser();
 * const enc = new TextEncoder();
 * assert(p.feed(enc.encode("\x1b[1;")).length === 0);
 * const [ev] = p.feed(enc.encode("5C"));
 * assert(ev?.type === "key" && ev.name === "right" && ev.ctrl);
 * ```
 */
export class KeyParser {
  #decoder = new TextDecoder("utf-8");
  #buf = "";
  #paste: string | undefined;

  /** Decodes one chunk; returns the events that are complete so far. */
  feed(chunk: Uint8Array | string): KeyEvent[] {
    this.#buf += typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    return this.#drain(false);
  }

  /** Whether input is held waiting for more bytes (a lone ESC or a partial sequence). */
  get pending(): boolean {
    return this.#buf.length > 0 && this.#paste === undefined;
  }

  /** Whether a bracketed paste has started and not ended. */
  get inPaste(): boolean {
    return this.#paste !== undefined;
  }

  /**
   * Releases held input as if no more bytes will come for it: a lone ESC becomes Escape, an
   * unfinished sequence becomes its characters as Alt-text. An open paste is kept.
   */
  flush(): KeyEvent[] {
    return this.#drain(true);
  }

  #drain(final: boolean): KeyEvent[] {
    const out: KeyEvent[] = [];
    let text = "";
    const pushText = () => {
      if (text) out.push({ type: "text", text });
      text = "";
    };
    while (this.#buf.length > 0) {
      if (this.#paste !== undefined) {
        const end = this.#buf.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a possible partial end marker in the buffer; move the rest into the paste.
          const keep = partialSuffix(this.#buf, PASTE_END);
          this.#paste += this.#buf.slice(0, this.#buf.length - keep);
          this.#buf = this.#buf.slice(this.#buf.length - keep);
          break;
        }
        this.#paste += this.#buf.slice(0, end);
        this.#buf = this.#buf.slice(end + PASTE_END.length);
        out.push({ type: "paste", text: this.#paste.replace(/\r\n?/g, "\n") });
        this.#paste = undefined;
        continue;
      }
      const c = this.#buf.charCodeAt(0);
      if (c === 0x1b) {
        if (this.#buf.startsWith(PASTE_START)) {
          pushText();
          this.#buf = this.#buf.slice(PASTE_START.length);
          this.#paste = "";
          continue;
        }
        const r = decodeEscape(this.#buf);
        if (r === "incomplete") {
          if (!final) break;
          pushText();
          if (this.#buf.length === 1) {
            out.push(key("escape"));
            this.#buf = "";
          } else {
            // An unfinished sequence that will not complete: report its text as Alt input.
            out.push({ type: "text", text: this.#buf.slice(1), alt: true });
            this.#buf = "";
          }
          break;
        }
        pushText();
        out.push(r.event);
        this.#buf = this.#buf.slice(r.length);
        continue;
      }
      if (c < 0x20 || c === 0x7f) {
        pushText();
        out.push(controlKey(c, false));
        this.#buf = this.#buf.slice(1);
        continue;
      }
      // A run of printable characters up to the next control character.
      let i = 1;
      while (i < this.#buf.length) {
        const d = this.#buf.charCodeAt(i);
        if (d < 0x20 || d === 0x7f) break;
        i++;
      }
      text += this.#buf.slice(0, i);
      this.#buf = this.#buf.slice(i);
    }
    pushText();
    return out;
  }
}

/** The length of the longest suffix of `s` that is a proper prefix of `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) {
    if (s.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

/**
 * A short, stable description of a key event, for tests and debugging.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeKey } from "./keys.ts";
 * assert(
 *   describeKey({ type: "key", name: "enter", ctrl: false, alt: false, shift: true }) ===
 *     "shift+enter",
 * );
 * ```
 */
export function describeKey(ev: KeyEvent): string {
  if (ev.type === "text") return (ev.alt ? "alt+" : "") + `text(${ev.text})`;
  if (ev.type === "paste") return `paste(${ev.text})`;
  if (ev.type === "focus") return ev.focused ? "focus-in" : "focus-out";
  return (ev.ctrl ? "ctrl+" : "") + (ev.alt ? "alt+" : "") + (ev.shift ? "shift+" : "") +
    ev.name;
}
