/**
 * web_fetch against a scripted site on 127.0.0.1 (listed in web_fetch_allow): pages come back as
 * Markdown, and each thing it must refuse is refused with a message that says why.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import {
  createWebFetchTool,
  MAX_HTML_CONVERT_CHARS,
  type WebFetchOptions,
} from "../../../server/tools/web_fetch.ts";
import { WebCache } from "../../../server/tools/web/cache.ts";
import {
  BIG_BYTES,
  loopbackOnlyNet,
  type Site,
  startSite,
  TEXT_BODY,
  webContext,
} from "./web/site.ts";

async function withSite(fn: (site: Site) => Promise<void>): Promise<void> {
  const site = startSite();
  try {
    await fn(site);
  } finally {
    await site.close();
  }
}

function tool(options: WebFetchOptions = {}) {
  return createWebFetchTool({ allow: ["127.0.0.1"], net: loopbackOnlyNet(), ...options });
}

Deno.test("web_fetch returns an HTML page as Markdown without scripts or navigation", async () => {
  await withSite(async (site) => {
    const r = await tool().run({ url: `${site.origin}/page` }, webContext());
    assert(r.success, r.output);
    assertMatch(r.output, /^URL: http:\/\/127\.0\.0\.1:\d+\/page$/m);
    assertMatch(r.output, /^Title: Migration guide$/m);
    assertMatch(r.output, /^#+ Breaking changes$/m);
    assertMatch(r.output, /\*\*legacy\*\*/);
    // Relative links made absolute, so the model can fetch them next.
    assert(r.output.includes(`[migration tool](${site.origin}/tools/migrate)`), r.output);
    for (const gone of ["SCRIPT-IN-HEAD", "SCRIPT-IN-BODY", "NAV-LINK-BLOG", "FOOTER-COPYRIGHT"]) {
      assert(!r.output.includes(gone), `${gone} in ${r.output}`);
    }
    assert(!r.output.includes("<"), r.output);
  });
});

Deno.test("web_fetch returns plain text as it is", async () => {
  await withSite(async (site) => {
    const r = await tool().run({ url: `${site.origin}/text` }, webContext());
    assert(r.success, r.output);
    assert(r.output.endsWith("\n\nplain text, returned as is\n<not html>"), r.output);
  });
});

Deno.test("web_fetch refuses a redirect to a private address without sending to it", async () => {
  await withSite(async (site) => {
    const sent: Array<{ url: string; address: string | undefined }> = [];
    const t = tool({ net: loopbackOnlyNet(sent), allow: ["*", "127.0.0.1"] });
    const r = await t.run({ url: `${site.origin}/to-private` }, webContext());
    assert(!r.success);
    assertEquals(
      r.output,
      "Refused http://10.0.0.1/admin: 10.0.0.1 is a private address, which web_fetch refuses " +
        'unless "web_fetch_allow" lists it',
    );
    assertEquals(sent.map((s) => s.url), [`${site.origin}/to-private`]);
  });
});

Deno.test("web_fetch refuses localhost, which resolves to loopback, when it is not listed", async () => {
  await withSite(async (site) => {
    const r = await tool({ allow: ["*"] }).run(
      { url: `http://localhost:${site.port}/page` },
      webContext(),
    );
    assert(!r.success);
    assertMatch(
      r.output,
      /^Refused http:\/\/localhost:\d+\/page: localhost resolves to (127\.0\.0\.1|::1), a loopback address, which web_fetch refuses unless "web_fetch_allow" lists it$/,
    );
    assertEquals(site.log.paths, []);
  });
});

Deno.test("web_fetch refuses 127.0.0.1 when the list holds only public hosts", async () => {
  await withSite(async (site) => {
    const r = await tool({ allow: ["*"] }).run({ url: `${site.origin}/page` }, webContext());
    assert(!r.success);
    assertMatch(r.output, /127\.0\.0\.1 is a loopback address, which web_fetch refuses/);
    assertEquals(site.log.paths, []);
  });
});

Deno.test("web_fetch follows 5 redirects and refuses the sixth", async () => {
  await withSite(async (site) => {
    const r = await tool().run({ url: `${site.origin}/loop/0` }, webContext());
    assert(!r.success);
    assertEquals(
      r.output,
      `Refused ${site.origin}/loop/0: more than 5 redirects (the last went to ${site.origin}/loop/6)`,
    );
    assertEquals(site.log.paths, [
      "/loop/0",
      "/loop/1",
      "/loop/2",
      "/loop/3",
      "/loop/4",
      "/loop/5",
    ]);
  });
});

Deno.test("web_fetch follows a redirect and says where from", async () => {
  await withSite(async (site) => {
    const r = await tool().run({ url: `${site.origin}/to-page` }, webContext());
    assert(r.success, r.output);
    assertMatch(r.output, /^URL: http:\/\/127\.0\.0\.1:\d+\/page\nRedirected from: .*\/to-page$/m);
  });
});

Deno.test("web_fetch cuts a 50 MB body at max_bytes and says so, without downloading it", async () => {
  await withSite(async (site) => {
    const r = await tool().run(
      { url: `${site.origin}/big`, max_bytes: 1024 * 1024 },
      webContext({ maxOutputBytes: 4096 }),
    );
    assert(r.success, r.output);
    assert(r.truncated);
    assertMatch(
      r.output,
      /\[web_fetch: the body was cut after 1048576 bytes \(max_bytes\); the server declared 52428800 bytes; the rest was not downloaded\]$/,
    );
    assert(new TextEncoder().encode(r.output).length <= 4096, `${r.output.length}`);
    assert(site.log.bigSent < BIG_BYTES, `the site sent all ${site.log.bigSent} bytes`);
  });
});

Deno.test("web_fetch caps max_bytes at web_fetch_max_bytes", async () => {
  await withSite(async (site) => {
    const r = await tool({ maxBytes: 100_000 }).run(
      { url: `${site.origin}/big`, max_bytes: 10 ** 9 },
      webContext({ maxOutputBytes: 1024 }),
    );
    assert(r.success, r.output);
    assertMatch(r.output, /cut after 100000 bytes \(max_bytes, at most "web_fetch_max_bytes"\)/);
  });
});

Deno.test("web_fetch gives up on a slow drip at its time limit with a clear message", async () => {
  await withSite(async (site) => {
    const r = await tool({ timeoutMs: 300 }).run({ url: `${site.origin}/drip` }, webContext());
    assert(!r.success);
    assertMatch(
      r.output,
      /^web_fetch timed out after 300 ms fetching http:\/\/127\.0\.0\.1:\d+\/drip: \d+ bytes of the body had arrived \(a server that answers this slowly is cut off; "web_fetch_timeout_ms" sets the limit\)$/,
    );
  });
});

Deno.test("web_fetch stops a slow drip when the turn is cancelled", async () => {
  await withSite(async (site) => {
    const controller = new AbortController();
    const run = tool().run(
      { url: `${site.origin}/drip` },
      webContext({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 100);
    const r = await run;
    assertEquals(r, { success: false, output: "web_fetch was cancelled", truncated: false });
  });
});

Deno.test("web_fetch refuses a binary body by its type and by its bytes", async () => {
  await withSite(async (site) => {
    const png = await tool().run({ url: `${site.origin}/png` }, webContext());
    assert(!png.success);
    assertEquals(
      png.output,
      `Refused ${site.origin}/png: the response is binary (image/png); web_fetch returns only ` +
        `HTML and text`,
    );
    const nul = await tool().run({ url: `${site.origin}/nul` }, webContext());
    assert(!nul.success);
    assertMatch(nul.output, /the response is binary \(text\/plain\)/);
  });
});

Deno.test("web_fetch serves a second fetch of a page from its cache, per session", async () => {
  await withSite(async (site) => {
    let now = 1_000_000;
    const t = tool({ cache: new WebCache({ now: () => now }) });
    const url = `${site.origin}/count`;
    const first = await t.run({ url }, webContext());
    assert(first.success, first.output);
    now += 60_000;
    const second = await t.run({ url }, webContext());
    assertEquals(site.log.paths, ["/count"]);
    assertEquals(second.output, `[from web_fetch's cache, fetched 60 s ago]\n${first.output}`);
    await t.run({ url }, webContext({ sessionId: "s2" }));
    assertEquals(site.log.paths, ["/count", "/count"]);
    now += 15 * 60_000;
    await t.run({ url }, webContext());
    assertEquals(site.log.paths, ["/count", "/count", "/count"]);
  });
});

Deno.test("web_fetch refuses URLs that are not http or https, with credentials, or unparsable", async () => {
  const t = tool();
  for (
    const [url, message] of [
      ["file:///etc/passwd", 'Cannot fetch "file:" URLs: only http and https'],
      ["ftp://example.com/x", 'Cannot fetch "ftp:" URLs: only http and https'],
      ["http://user:pw@example.com/", "Cannot fetch a URL with credentials in it (user:password@)"],
      ["not a url", 'Not an absolute URL: "not a url"'],
    ]
  ) {
    assertEquals(await t.run({ url: url! }, webContext()), {
      success: false,
      output: message!,
      truncated: false,
    });
  }
});

Deno.test("web_fetch refuses a host that is not in web_fetch_allow", async () => {
  const r = await tool({ allow: ["docs.deno.com"] }).run(
    { url: "https://example.com/" },
    webContext(),
  );
  assertEquals(
    r.output,
    'Refused https://example.com/: example.com:443 is not in "web_fetch_allow"',
  );
});

Deno.test("web_fetch sends an http request to the address it checked, not to the name again", async () => {
  await withSite(async (site) => {
    // "rebind.invalid" resolves nowhere but in this network's resolver: the page can only be
    // reached through the checked address the request is pinned to.
    const sent: Array<{ url: string; address: string | undefined }> = [];
    const guarded = loopbackOnlyNet(sent);
    const net = { ...guarded, resolve: () => Promise.resolve(["127.0.0.1"]) };
    const t = tool({ net, allow: ["rebind.invalid"] });
    const r = await t.run({ url: `http://rebind.invalid:${site.port}/text` }, webContext());
    assert(r.success, r.output);
    assertMatch(r.output, /plain text, returned as is/);
    assertEquals(sent, [{ url: `http://rebind.invalid:${site.port}/text`, address: "127.0.0.1" }]);
  });
});

Deno.test("web_fetch refuses a name when any of its addresses is private", async () => {
  const sent: Array<{ url: string; address: string | undefined }> = [];
  const net = {
    ...loopbackOnlyNet(sent),
    resolve: () => Promise.resolve(["93.184.216.34", "10.0.0.7"]),
  };
  const r = await tool({ net, allow: ["*"] }).run({ url: "http://mixed.invalid/" }, webContext());
  assertEquals(
    r.output,
    "Refused http://mixed.invalid/: mixed.invalid resolves to 10.0.0.7, a private address, " +
      'which web_fetch refuses unless "web_fetch_allow" lists it',
  );
  assertEquals(sent, []);
});

Deno.test("web_fetch reads a body of exactly max_bytes whole and cuts one byte more", async () => {
  await withSite(async (site) => {
    const size = new TextEncoder().encode(TEXT_BODY).length;
    const whole = await tool().run({ url: `${site.origin}/text`, max_bytes: size }, webContext());
    assert(whole.success && !whole.truncated, whole.output);
    assert(whole.output.endsWith(`\n\n${TEXT_BODY}`), whole.output);
    const cut = await tool().run({ url: `${site.origin}/text`, max_bytes: size - 1 }, webContext());
    assert(cut.success && cut.truncated, cut.output);
    assert(
      cut.output.includes(
        `\n\n${TEXT_BODY.slice(0, -1)}\n\n[web_fetch: the body was cut after ${size - 1} bytes`,
      ),
      cut.output,
    );
  });
});

Deno.test("web_fetch gives up on a server that never answers at its time limit", async () => {
  await withSite(async (site) => {
    const r = await tool({ timeoutMs: 200 }).run({ url: `${site.origin}/hang` }, webContext());
    assert(!r.success);
    assertMatch(
      r.output,
      /^web_fetch timed out after 200 ms fetching .*\/hang: 0 bytes of the body had arrived/,
    );
  });
});

Deno.test("web_fetch reports a 404 as a failure with the page", async () => {
  await withSite(async (site) => {
    const r = await tool().run({ url: `${site.origin}/missing` }, webContext());
    assert(!r.success);
    assertMatch(r.output, /^HTTP 404 Not Found\nURL: .*\/missing\n/);
    assert(r.output.endsWith("\n\nnot found"), r.output);
  });
});

Deno.test("web_fetch converts at most MAX_HTML_CONVERT_CHARS of a page's HTML and says so", async () => {
  const head = "<html><head><title>Long</title></head><body><article>";
  const para = "<p>" + "many words in a paragraph ".repeat(40) + "</p>\n";
  const body = head + para.repeat(Math.ceil((MAX_HTML_CONVERT_CHARS * 1.5) / para.length)) +
    "<p>TAIL-MARKER</p></article></body></html>";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  try {
    const port = (server.addr as Deno.NetAddr).port;
    const r = await tool().run(
      { url: `http://127.0.0.1:${port}/long` },
      webContext({ maxOutputBytes: 4096 }),
    );
    assert(r.success, r.output);
    assert(!r.output.includes("TAIL-MARKER"), "the HTML past the bound is not converted");
    assert(
      r.output.includes(
        `[web_fetch: only the first ${MAX_HTML_CONVERT_CHARS} characters of the page's ` +
          `${body.length} characters of HTML were converted]`,
      ),
      r.output.slice(-500),
    );
  } finally {
    await server.shutdown();
  }
});
