/**
 * The `web_fetch` tool: a web page as Markdown (HTML, through Readability and Turndown) or as
 * text, fetched by scv itself within its own `--allow-net`, `web_fetch_allow` and the refused
 * address ranges (`web/fetch_page.ts` says how each hop is checked), bounded in time and bytes,
 * cached for 15 minutes per session. Risk `network`: it asks under `on-risk` and `auto` unless a
 * rule allows the host.
 *
 * @module
 */
import * as z from "zod";
import { SCV_VERSION } from "../../protocol/constants.ts";
import { errorText } from "../error_text.ts";
import { truncateText } from "./output.ts";
import { stopMessage, type Tool, type ToolResult } from "./tool.ts";
import { after } from "../timer.ts";
import { WebCache } from "./web/cache.ts";
import { bodyKind, decodeBody, mediaType } from "./web/content.ts";
import { binaryMessage, denoWebNet, fetchPage, type WebNet } from "./web/fetch_page.ts";
import { ANY_PUBLIC_HOST, checkUrl, WebPolicy } from "./web/policy.ts";

/** The most characters of HTML converted to Markdown; the rest of a larger page is left out. */
export const MAX_HTML_CONVERT_CHARS = 1024 * 1024;

/** `web_fetch_timeout_ms`'s default: a whole fetch, redirects and body included. */
export const DEFAULT_WEB_FETCH_TIMEOUT_MS = 30_000;
/** `web_fetch_max_bytes`'s default: the most `max_bytes` may ask for. */
export const DEFAULT_WEB_FETCH_MAX_BYTES = 10 * 1024 * 1024;
/** Body bytes read when the call gives no `max_bytes`. */
export const DEFAULT_BODY_BYTES = 2 * 1024 * 1024;

/** How `web_fetch` is configured; every field has the default of CONTRACT.md. */
export interface WebFetchConfig {
  /** `web_fetch_allow`: host patterns, `"*"` for any public host (default `["*"]`). */
  allow?: readonly string[];
  /** `web_fetch_timeout_ms`: the time one call may take. */
  timeoutMs?: number;
  /** `web_fetch_max_bytes`: the cap on `max_bytes`. */
  maxBytes?: number;
}

/** {@link WebFetchConfig} and what tests replace. */
export interface WebFetchOptions extends WebFetchConfig {
  /** The network (tests script it); default the process's own. */
  net?: WebNet;
  /** The cache (tests pass one with a clock); default a new one for this tool. */
  cache?: WebCache;
}

/** The arguments. */
const schema = z.object({
  url: z.string().min(1).describe("The http or https URL of the page"),
  max_bytes: z.number().int().positive().optional().describe(
    "Read at most this many bytes of the body (default 2 MiB, capped by the server)",
  ),
});

/** The time limit of one fetch ran out. */
class WebFetchTimeout extends Error {
  constructor(readonly ms: number) {
    super(`web_fetch timed out after ${ms} ms`);
  }
}

const USER_AGENT = `scv/${SCV_VERSION} (web_fetch)`;

/**
 * The `web_fetch` tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createWebFetchTool } from "./web_fetch.ts";
 * const tool = createWebFetchTool();
 * assert.equal(tool.summary({ url: "https://deno.com/" }), "Fetch web page: https://deno.com/");
 * ```
 */
export function createWebFetchTool(options: WebFetchOptions = {}): Tool<z.infer<typeof schema>> {
  const policy = new WebPolicy(options.allow ?? [ANY_PUBLIC_HOST]);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEB_FETCH_TIMEOUT_MS;
  const cap = options.maxBytes ?? DEFAULT_WEB_FETCH_MAX_BYTES;
  const net = options.net ?? denoWebNet;
  const cache = options.cache ?? new WebCache();
  return {
    name: "web_fetch",
    description: "Fetch a web page (http or https) and return it as Markdown (HTML pages: the " +
      "main content, without scripts or navigation) or as text. Binary files are refused. " +
      "Results are cached for 15 minutes. Loopback and private addresses are refused unless " +
      "the user allows them.",
    schema,
    risk: () => "network",
    // It changes nothing: plan mode runs it (asking as on-risk does).
    readOnly: true,
    summary: (a) => `Fetch web page: ${a.url}`,
    async run(args, ctx): Promise<ToolResult> {
      let url: URL;
      try {
        url = checkUrl(args.url);
      } catch (e) {
        return failed(errorText(e));
      }
      const maxBytes = Math.min(args.max_bytes ?? Math.min(DEFAULT_BODY_BYTES, cap), cap);
      const session = ctx.sessionId ?? "";
      const key = `${url.href}\0${maxBytes}`;
      const hit = cache.get(session, key);
      if (hit) {
        const age = Math.round((cache.now() - hit.at) / 1000);
        return {
          success: true,
          output: `[from web_fetch's cache, fetched ${age} s ago]\n${hit.output}`,
          truncated: hit.truncated,
        };
      }
      const deadline = new AbortController();
      const timer = after(timeoutMs, () => deadline.abort(new WebFetchTimeout(timeoutMs)));
      const signal = AbortSignal.any([ctx.signal, deadline.signal]);
      let received = 0;
      let page;
      try {
        page = await fetchPage(url, policy, {
          maxBytes,
          signal,
          userAgent: USER_AGENT,
          progress: (n) => received = n,
        }, net);
      } catch (e) {
        if (ctx.signal.aborted) return failed(stopMessage(ctx.signal, "web_fetch was cancelled"));
        if (deadline.signal.aborted) {
          return failed(
            `${(deadline.signal.reason as WebFetchTimeout).message} fetching ${url.href}: ` +
              `${received} bytes of the body had arrived (a server that answers this slowly ` +
              `is cut off; "web_fetch_timeout_ms" sets the limit)`,
          );
        }
        return failed(`Cannot fetch ${url.href}: ${errorText(e)}`);
      } finally {
        if (!page?.ok) timer.cancel();
      }
      if (!page.ok) return failed(page.message);
      const kind = bodyKind(page.contentType, page.bytes);
      if (kind === "binary") {
        timer.cancel();
        return failed(binaryMessage(page.url, page.contentType));
      }
      const text = decodeBody(page.bytes, page.contentType, kind === "html");
      const lines = [`URL: ${page.url.href}`];
      if (page.redirects.length > 0) lines.push(`Redirected from: ${url.href}`);
      lines.push(`Content-Type: ${mediaType(page.contentType) || "unknown"}`);
      let content = text;
      let htmlCut = false;
      if (kind === "html") {
        // In a worker, within the fetch's time: converting a hostile page can take minutes.
        let md;
        try {
          const { htmlToMarkdownInWorker } = await import("./web/html_worker.ts");
          // The converter's memory grows with the page (about 350 bytes per byte of a 9.6 MB
          // page): only the first MAX_HTML_CONVERT_CHARS are converted.
          htmlCut = text.length > MAX_HTML_CONVERT_CHARS;
          const html = htmlCut ? text.slice(0, MAX_HTML_CONVERT_CHARS) : text;
          md = await htmlToMarkdownInWorker(html, page.url.href, signal);
        } catch (e) {
          if (ctx.signal.aborted) {
            return failed(stopMessage(ctx.signal, "web_fetch was cancelled"));
          }
          if (deadline.signal.aborted) {
            return failed(
              `${(deadline.signal.reason as WebFetchTimeout).message} converting the HTML of ` +
                `${page.url.href} (${page.bytes.length} bytes) to Markdown; the page is too ` +
                `complex ("web_fetch_timeout_ms" sets the limit)`,
            );
          }
          return failed(`Cannot convert the HTML of ${page.url.href}: ${errorText(e)}`);
        } finally {
          timer.cancel();
        }
        if (typeof md === "string") return failed(`Cannot read ${page.url.href}: ${md}`);
        if (md.title) lines.push(`Title: ${md.title}`);
        content = md.markdown;
      } else timer.cancel();
      const ok = page.status >= 200 && page.status < 300;
      if (!ok) lines.unshift(`HTTP ${page.status} ${page.statusText}`.trim());
      let out = `${lines.join("\n")}\n\n${content}`;
      if (htmlCut) {
        out += `\n\n[web_fetch: only the first ${MAX_HTML_CONVERT_CHARS} characters of the ` +
          `page's ${text.length} characters of HTML were converted]`;
      }
      if (page.cut) {
        const size = page.declaredBytes !== undefined
          ? `; the server declared ${page.declaredBytes} bytes`
          : "";
        out += `\n\n[web_fetch: the body was cut after ${maxBytes} bytes (max_bytes${
          maxBytes === cap ? `, at most "web_fetch_max_bytes"` : ""
        })${size}; the rest was not downloaded]`;
      }
      const bounded = truncateText(out, ctx.limits.maxOutputBytes);
      const result = {
        success: ok,
        output: bounded.text,
        truncated: bounded.truncated || page.cut,
      };
      if (ok) cache.set(session, key, { output: result.output, truncated: result.truncated });
      return result;
    },
  };
}

function failed(output: string): ToolResult {
  return { success: false, output, truncated: false };
}
