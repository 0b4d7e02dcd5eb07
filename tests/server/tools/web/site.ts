/**
 * A scripted web site on 127.0.0.1 (port 0) for the web_fetch tests, and a network for the tool
 * that refuses to send anything beyond loopback, so that a check that failed to refuse can never
 * send a request off this machine.
 *
 * @module
 */
import { denoWebNet, type WebNet } from "../../../../server/tools/web/fetch_page.ts";
import { addressClass } from "../../../../server/sandbox/net/hosts.ts";
import type { ToolContext } from "../../../../server/tools/tool.ts";

/** The bytes of a 50 MB body. */
export const BIG_BYTES = 50 * 1024 * 1024;

/** The body of /text. */
export const TEXT_BODY = "plain text, returned as is\n<not html>";

/** An HTML page with navigation, scripts and an article. */
export const ARTICLE_HTML = `<!doctype html>
<html><head><title>Migration guide</title>
<script>window.tracker = "SCRIPT-IN-HEAD";</script>
<style>body { color: red }</style></head>
<body>
<nav class="site-nav"><a href="/">Home</a> <a href="/blog">NAV-LINK-BLOG</a></nav>
<header>HEADER-BANNER</header>
<main><article>
<h1>Migrating to version 2</h1>
<p>Version 2 changes the configuration format. Every key moves under a <code>settings</code>
object, and the old flat keys are read for one more release with a warning on start-up.</p>
<p>To migrate, run the <a href="/tools/migrate">migration tool</a> on each file, check the diff,
and commit. The tool keeps comments and ordering, so a review stays short and the history clean.</p>
<h2>Breaking changes</h2>
<ul><li>The <strong>legacy</strong> loader is gone.</li><li>Plugins need a manifest.</li></ul>
<script>document.write("SCRIPT-IN-BODY")</script>
</article></main>
<footer>FOOTER-COPYRIGHT</footer>
</body></html>`;

/** What the site saw. */
export interface SiteLog {
  /** Request paths, in order. */
  paths: string[];
  /** Bytes of the 50 MB body handed to the connection so far. */
  bigSent: number;
  /** Whether the 50 MB body's stream was cancelled (the client went away). */
  bigCancelled: boolean;
}

/** The running site. */
export interface Site {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  port: number;
  log: SiteLog;
  close(): Promise<void>;
}

/**
 * Starts the site. Routes: /page, /text, /png, /nul, /big, /drip, /hang, /loop/N, /to-private,
 * /to-page, /count.
 */
export function startSite(): Site {
  const log: SiteLog = { paths: [], bigSent: 0, bigCancelled: false };
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    log.paths.push(path);
    if (path === "/page" || path === "/count") {
      return new Response(ARTICLE_HTML, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    if (path === "/text") {
      return new Response(TEXT_BODY, {
        headers: { "content-type": "text/plain" },
      });
    }
    if (path === "/png") {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
      return new Response(png, { headers: { "content-type": "image/png" } });
    }
    if (path === "/nul") {
      return new Response(new Uint8Array([104, 105, 0, 1, 2, 3]), {
        headers: { "content-type": "text/plain" },
      });
    }
    if (path === "/hang") {
      // Headers never come; the request ends when the client goes away.
      return new Promise<Response>((resolve) =>
        req.signal.addEventListener("abort", () => resolve(new Response(null)), { once: true })
      );
    }
    if (path === "/to-page") return redirect("/page");
    if (path === "/to-private") return redirect("http://10.0.0.1/admin");
    const loop = /^\/loop\/(\d+)$/.exec(path);
    if (loop) return redirect(`/loop/${Number(loop[1]) + 1}`);
    if (path === "/big") {
      const chunk = new Uint8Array(64 * 1024).fill(97);
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (log.bigSent >= BIG_BYTES) return c.close();
          c.enqueue(chunk);
          log.bigSent += chunk.length;
        },
        cancel() {
          log.bigCancelled = true;
        },
      }, { highWaterMark: 0 });
      return new Response(body, {
        headers: { "content-type": "text/plain", "content-length": String(BIG_BYTES) },
      });
    }
    if (path === "/drip") {
      let timer: ReturnType<typeof setInterval> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          timer = setInterval(() => {
            try {
              c.enqueue(new Uint8Array([97]));
            } catch {
              clearInterval(timer);
              timers.delete(timer!);
            }
          }, 20);
          timers.add(timer!);
        },
        cancel() {
          clearInterval(timer);
          timers.delete(timer!);
        },
      });
      return new Response(body, { headers: { "content-type": "text/plain" } });
    }
    return new Response("not found", { status: 404 });
  });
  const port = server.addr.port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    log,
    close: async () => {
      for (const t of timers) clearInterval(t);
      await server.shutdown();
    },
  };
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}

/**
 * The process's network, except that a request to anything but a loopback address fails the
 * test instead of leaving the machine. `sent` records each request's URL and pinned address.
 */
export function loopbackOnlyNet(sent: Array<{ url: string; address: string | undefined }> = []) {
  const net: WebNet = {
    ...denoWebNet,
    send: (url, address, init) => {
      sent.push({ url: url.href, address });
      if (address === undefined || addressClass(address) !== "loopback") {
        throw new Error(`test guard: web_fetch tried to send to ${url.href} (${address})`);
      }
      return denoWebNet.send(url, address, init);
    },
  };
  return net;
}

/** A call context for web_fetch in session `s1`. */
export function webContext(
  options: { signal?: AbortSignal; maxOutputBytes?: number; sessionId?: string } = {},
): ToolContext {
  return {
    cwd: "/",
    signal: options.signal ?? new AbortController().signal,
    limits: { maxOutputBytes: options.maxOutputBytes ?? 65536, timeoutMs: 60_000 },
    secretEnv: [],
    sessionId: options.sessionId ?? "s1",
  };
}
