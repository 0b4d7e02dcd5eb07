/**
 * Renders Markdown to styled terminal lines for a width: headings, emphasis, lists (nested,
 * ordered, task), block quotes, links, tables, rules and fenced code with syntax highlighting.
 * Built on marked's lexer with our own renderer, so wrapping is by display width and colour can
 * be switched off entirely.
 *
 * @module
 */
import stripAnsi from "strip-ansi";
import { marked, type Token, type Tokens } from "marked";
import { highlight, supportsLanguage, type Theme } from "cli-highlight";
import { displayWidth, padTo, sanitize, type Style, wrapStyled } from "./text.ts";

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /** Columns available; at least 10 are assumed. */
  width: number;
  style: Style;
}

/**
 * Renders Markdown source to lines no wider than `width` columns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderMarkdown } from "./markdown.ts";
 * import { makeStyle } from "./text.ts";
 * const lines = renderMarkdown("# Title\n\nSome *text*.", { width: 40, style: makeStyle(false) });
 * assert(lines[0] === "# Title" && lines[2] === "Some text.");
 * ```
 */
export function renderMarkdown(source: string, options: MarkdownOptions): string[] {
  const width = Math.max(10, options.width);
  let tokens: Token[];
  try {
    tokens = marked.lexer(sanitize(source), { gfm: true });
  } catch {
    return wrapStyled(sanitize(source), width);
  }
  const r = new Renderer(options.style);
  const lines = r.blocks(tokens, width);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines;
}

class Renderer {
  #s: Style;
  constructor(style: Style) {
    this.#s = style;
  }

  /** Renders blocks, separated by one blank line unless `tight` (inside a tight list). */
  blocks(tokens: Token[], width: number, tight = false): string[] {
    const out: string[] = [];
    for (const t of tokens) {
      const lines = this.block(t, width);
      if (lines === undefined) continue;
      if (!tight && out.length > 0 && out[out.length - 1] !== "") out.push("");
      out.push(...lines);
    }
    return out;
  }

  block(t: Token, width: number): string[] | undefined {
    const s = this.#s;
    switch (t.type) {
      case "space":
        return undefined;
      case "heading": {
        const tok = t as Tokens.Heading;
        const text = this.inline(tok.tokens);
        const marker = s.enabled ? "" : "#".repeat(tok.depth) + " ";
        const styled = tok.depth <= 2 ? s.bold(s.cyan(marker + text)) : s.bold(marker + text);
        return wrapStyled(styled, width);
      }
      case "paragraph":
        return wrapStyled(this.inline((t as Tokens.Paragraph).tokens), width);
      case "text": {
        const tok = t as Tokens.Text;
        return wrapStyled(tok.tokens ? this.inline(tok.tokens) : tok.text, width);
      }
      case "code":
        return this.code(t as Tokens.Code, width);
      case "blockquote": {
        const inner = this.blocks((t as Tokens.Blockquote).tokens, width - 2);
        return inner.map((l) => s.gray("│ ") + s.italic(l));
      }
      case "list":
        return this.list(t as Tokens.List, width);
      case "table":
        return this.table(t as Tokens.Table, width);
      case "hr":
        return [s.gray("─".repeat(Math.min(width, 80)))];
      case "html":
        return wrapStyled((t as Tokens.HTML).text.replace(/\n+$/, ""), width);
      case "def":
        return undefined;
      default: {
        const raw = (t as { raw?: string }).raw ?? "";
        return raw.trim() ? wrapStyled(raw.replace(/\n+$/, ""), width) : undefined;
      }
    }
  }

  code(t: Tokens.Code, width: number): string[] {
    const s = this.#s;
    const lang = (t.lang ?? "").trim().split(/\s+/)[0] ?? "";
    let body = t.text;
    if (s.enabled && lang && supportsLanguage(lang)) {
      try {
        body = highlight(body, { language: lang, ignoreIllegals: true, theme: theme(s) });
      } catch {
        // Highlighting is decoration; fall back to plain text.
      }
    }
    const inner = width - 2;
    const lines: string[] = [];
    if (lang) lines.push(s.gray(lang));
    for (const line of body.split("\n")) {
      for (const row of wrapStyled(line, inner, false)) lines.push("  " + row);
    }
    if (!s.enabled) {
      return ["```" + lang, ...lines.slice(lang ? 1 : 0), "```"];
    }
    return lines;
  }

  list(t: Tokens.List, width: number): string[] {
    const s = this.#s;
    const out: string[] = [];
    const start = typeof t.start === "number" ? t.start : 1;
    const markers = t.items.map((_, i) => (t.ordered ? `${start + i}.` : "•"));
    const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
    t.items.forEach((item, i) => {
      let marker = markers[i]!;
      if (item.task) marker = item.checked ? "[x]" : "[ ]";
      const mw = Math.max(markerWidth, marker.length + 1);
      const body = this.blocks(
        item.tokens.filter((x) => x.type !== "checkbox"),
        width - mw,
        !t.loose,
      );
      const lines = body.length > 0 ? body : [""];
      lines.forEach((line, j) => {
        const prefix = j === 0 ? s.yellow(marker) + " ".repeat(mw - marker.length) : " ".repeat(mw);
        out.push(line === "" ? "" : prefix + line);
      });
      if (t.loose && i < t.items.length - 1) out.push("");
    });
    return out;
  }

  table(t: Tokens.Table, width: number): string[] {
    const s = this.#s;
    const header = t.header.map((c) => this.inline(c.tokens));
    const rows = t.rows.map((r) => r.map((c) => this.inline(c.tokens)));
    const cols = header.length;
    const natural = header.map((h, i) =>
      Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? "")), 1)
    );
    // Borders: "│ " + cells joined by " │ " + " │"
    const available = Math.max(cols, width - (3 * cols + 1));
    const widths = fitColumns(natural, available);
    const rule = (l: string, m: string, r: string) =>
      s.gray(l + widths.map((w) => "─".repeat(w + 2)).join(m) + r);
    const renderRow = (cells: string[], bold: boolean): string[] => {
      const wrapped = widths.map((w, i) => wrapStyled(cells[i] ?? "", w));
      const height = Math.max(...wrapped.map((c) => c.length));
      const lines: string[] = [];
      for (let k = 0; k < height; k++) {
        const parts = widths.map((w, i) => {
          const cell = wrapped[i]![k] ?? "";
          const align = t.align[i];
          const pad = w - displayWidth(cell);
          const text = bold ? s.bold(cell) : cell;
          if (align === "right") return " ".repeat(Math.max(0, pad)) + text;
          if (align === "center") {
            const left = Math.floor(Math.max(0, pad) / 2);
            return " ".repeat(left) + text + " ".repeat(Math.max(0, pad - left));
          }
          return padTo(text, w);
        });
        lines.push(s.gray("│ ") + parts.join(s.gray(" │ ")) + s.gray(" │"));
      }
      return lines;
    };
    return [
      rule("┌", "┬", "┐"),
      ...renderRow(header, true),
      rule("├", "┼", "┤"),
      ...rows.flatMap((r) => renderRow(r, false)),
      rule("└", "┴", "┘"),
    ];
  }

  inline(tokens: Token[] | undefined): string {
    if (!tokens) return "";
    const s = this.#s;
    let out = "";
    for (const t of tokens) {
      switch (t.type) {
        case "text": {
          const tok = t as Tokens.Text;
          out += tok.tokens ? this.inline(tok.tokens) : decodeEntities(tok.text);
          break;
        }
        case "escape":
          out += decodeEntities((t as Tokens.Escape).text);
          break;
        case "strong":
          out += s.enabled
            ? s.bold(this.inline((t as Tokens.Strong).tokens))
            : this.inline((t as Tokens.Strong).tokens);
          break;
        case "em":
          out += s.italic(this.inline((t as Tokens.Em).tokens));
          break;
        case "del":
          out += s.strike(this.inline((t as Tokens.Del).tokens));
          break;
        case "codespan": {
          const text = decodeEntities((t as Tokens.Codespan).text);
          out += s.enabled ? s.yellow(text) : "`" + text + "`";
          break;
        }
        case "br":
          out += "\n";
          break;
        case "link": {
          const tok = t as Tokens.Link;
          const text = this.inline(tok.tokens);
          const plain = stripAnsi(text);
          out += s.underline(s.blue(text));
          if (tok.href && plain !== tok.href && `mailto:${plain}` !== tok.href) {
            out += s.gray(` (${tok.href})`);
          }
          break;
        }
        case "image": {
          const tok = t as Tokens.Image;
          out += s.gray(`[image: ${tok.text || tok.href}]`);
          break;
        }
        case "html":
          out += (t as Tokens.HTML).text;
          break;
        case "checkbox":
          break;
        default:
          out += (t as { raw?: string }).raw ?? "";
      }
    }
    return out;
  }
}

/** Shares `available` columns among columns of natural widths, shrinking the widest first. */
function fitColumns(natural: number[], available: number): number[] {
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let max = 0;
    for (let i = 1; i < widths.length; i++) if (widths[i]! > widths[max]!) max = i;
    if (widths[max]! <= 3) break;
    widths[max]!--;
    total--;
  }
  return widths;
}

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
}

let cachedTheme: Theme | undefined;

/** The syntax-highlighting theme, made of our own SGR functions (independent of chalk). */
function theme(s: Style): Theme {
  if (cachedTheme) return cachedTheme;
  cachedTheme = {
    keyword: s.magenta,
    built_in: s.cyan,
    type: s.cyan,
    literal: s.blue,
    number: s.yellow,
    regexp: s.red,
    string: s.green,
    subst: (x) => x,
    symbol: s.yellow,
    class: s.cyan,
    function: s.blue,
    title: s.blue,
    params: (x) => x,
    comment: s.gray,
    doctag: s.gray,
    meta: s.gray,
    "meta-keyword": s.magenta,
    "meta-string": s.green,
    section: s.bold,
    tag: s.blue,
    name: s.blue,
    attr: s.cyan,
    attribute: s.cyan,
    variable: s.red,
    bullet: s.yellow,
    addition: s.green,
    deletion: s.red,
    default: (x) => x,
  };
  return cachedTheme;
}
