/** HTML to Markdown for web_fetch: the main content, none of the page's chrome. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { htmlToMarkdown } from "../../../../server/tools/web/html_markdown.ts";

Deno.test("a fragment without <html> still converts, its title apart", () => {
  const page = htmlToMarkdown(
    "<title>T</title><nav>Menu</nav><h1>Hi</h1><p>See <a href='/x'>x</a>.</p><script>1</script>",
    "https://example.com/a/",
  );
  assertEquals(page, { title: "T", markdown: "## Hi\n\nSee [x](https://example.com/x)." });
});

Deno.test("the page's header and footer go, an article's own header stays", () => {
  const page = htmlToMarkdown(
    "<html><body><header>SITE-HEADER</header><article><header><h1>Art</h1></header>" +
      "<p>Body text.</p></article><footer>SITE-FOOTER</footer></body></html>",
    "https://example.com/",
  );
  assert(page.markdown.includes("Art") && page.markdown.includes("Body text."), page.markdown);
  assert(!/SITE-(HEADER|FOOTER)/.test(page.markdown), page.markdown);
});

Deno.test("javascript: links lose their target and <base> sets where links point", () => {
  const page = htmlToMarkdown(
    '<html><head><base href="https://cdn.example/docs/"></head><body>' +
      '<p><a href="javascript:alert(1)">bad</a> and <a href="guide.html">guide</a></p></body></html>',
    "https://example.com/",
  );
  assert(!page.markdown.includes("javascript:"), page.markdown);
  assert(page.markdown.includes("[guide](https://cdn.example/docs/guide.html)"), page.markdown);
});
