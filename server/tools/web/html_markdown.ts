/**
 * An HTML page as Markdown the model can read: the page's main content found by Mozilla's
 * Readability (Firefox's Reader View) on a linkedom DOM, then written as Markdown by Turndown.
 * Maintained libraries rather than a converter of our own: pages are messy, and these three are
 * what most tools of this kind use. This module is imported only when a page arrives (it costs
 * a few hundred milliseconds to load), never at start-up.
 *
 * @module
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

/** Elements that never carry content the model should read. */
const NOISE = [
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "form",
  "button",
  "nav",
  "header",
  "footer",
  "aside",
];

/** Elements Readability may parse before it gives up (a guard against pathological pages). */
const MAX_ELEMENTS = 200_000;

/** A page's title and its content as Markdown. */
export interface PageMarkdown {
  /** The page's title; empty when it has none. */
  title: string;
  /** The main content as Markdown. */
  markdown: string;
}

/** The few DOM members used here (scv type-checks without the DOM library). */
interface DomElement {
  textContent: string | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
}

/** A linkedom document, as far as this module uses it. */
interface DomDocument {
  body: DomElement | null;
  documentElement: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  cloneNode(deep: boolean): unknown;
}

let turndown: TurndownService | undefined;

function converter(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  turndown.remove(NOISE.slice(0, 10) as TurndownService.Filter);
  return turndown;
}

/**
 * The page at `url` as Markdown: Readability's article where it finds one, else the body without
 * scripts, styles, navigation, headers, footers and forms. Relative links are made absolute.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown } from "./html_markdown.ts";
 * const page = htmlToMarkdown(
 *   "<title>T</title><nav>Menu</nav><h1>Hi</h1><p>See <a href='/x'>x</a>.</p><script>1</script>",
 *   "https://example.com/a/",
 * );
 * assert.match(page.markdown, /\[x\]\(https:\/\/example\.com\/x\)/);
 * assert.doesNotMatch(page.markdown, /Menu/);
 * ```
 */
export function htmlToMarkdown(html: string, url: string): PageMarkdown {
  const doc = (parseHTML(html) as unknown as { document: DomDocument }).document;
  absoluteLinks(doc, url);
  const title = (doc.querySelector("title")?.textContent ?? "").replace(/\s+/g, " ").trim();
  let article: { title?: string | null | undefined; content?: string | null | undefined } | null =
    null;
  try {
    // Readability changes the document it reads: it gets a copy, the fallback the original.
    article = new Readability(doc.cloneNode(true) as never, {
      maxElemsToParse: MAX_ELEMENTS,
    }).parse();
  } catch {
    article = null; // too large or too strange for Readability: the cleaned body instead
  }
  let content = article?.content;
  if (!content) {
    for (const el of [...doc.querySelectorAll(NOISE.join(","))]) el.remove();
    content = doc.body?.innerHTML ?? doc.documentElement?.innerHTML ?? "";
  }
  const markdown = converter().turndown(content).replace(/\n{3,}/g, "\n\n").trim();
  return { title: article?.title?.trim() || title, markdown };
}

/** Rewrites `href` and `src` attributes against the page's URL (or its `<base>`). */
function absoluteLinks(doc: DomDocument, url: string): void {
  let base = url;
  const declared = doc.querySelector("base[href]")?.getAttribute("href");
  if (declared) {
    try {
      base = new URL(declared, url).href;
    } catch {
      // A broken <base>: the page's own URL.
    }
  }
  for (const [selector, attr] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const el of doc.querySelectorAll(selector)) {
      const value = el.getAttribute(attr);
      if (value === null || value.startsWith("#")) continue;
      try {
        const abs = new URL(value, base);
        if (abs.protocol === "javascript:") el.removeAttribute(attr);
        else el.setAttribute(attr, abs.href);
      } catch {
        // Not a URL: left as written.
      }
    }
  }
}
