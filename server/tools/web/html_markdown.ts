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

/** Elements that never carry content the model should read, removed before anything else. */
const NOISE = [
  "title", // read first, shown apart
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
  "aside",
];

/** A page's own header and footer; inside an article or main they hold its title, so stay. */
const PAGE_CHROME = ["header", "footer"];

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
  closest(selector: string): DomElement | null;
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
  turndown.remove(NOISE as TurndownService.Filter);
  return turndown;
}

/**
 * The page at `url` as Markdown: scripts, styles, navigation, forms and the page's own header and
 * footer removed, then Readability's article where it finds one, else the rest of the body.
 * Relative links are made absolute.
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
  // linkedom builds no body for a fragment without <html>: it gets one.
  const page = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><body>${html}</body></html>`;
  const doc = (parseHTML(page) as unknown as { document: DomDocument }).document;
  absoluteLinks(doc, url);
  const title = (doc.querySelector("title")?.textContent ?? "").replace(/\s+/g, " ").trim();
  for (const el of [...doc.querySelectorAll(NOISE.join(","))]) el.remove();
  for (const el of [...doc.querySelectorAll(PAGE_CHROME.join(","))]) {
    if (!el.closest("article, main")) el.remove();
  }
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
  const content = article?.content ||
    (doc.body?.innerHTML ?? doc.documentElement?.innerHTML ?? "");
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
