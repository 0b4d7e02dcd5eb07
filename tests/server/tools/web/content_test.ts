/** What web_fetch makes of a body: HTML, text or binary, and its charset. */
import { assertEquals } from "../../../support/assert.ts";
import { bodyKind, decodeBody } from "../../../../server/tools/web/content.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("a body's kind follows its type, and a NUL makes it binary", () => {
  assertEquals(bodyKind("text/html", bytes("<p>x")), "html");
  assertEquals(bodyKind("application/xhtml+xml", bytes("<p>x")), "html");
  assertEquals(bodyKind("application/json", bytes("{}")), "text");
  assertEquals(bodyKind("application/ld+json", bytes("{}")), "text");
  assertEquals(bodyKind("text/markdown", bytes("# x")), "text");
  for (const t of ["image/png", "application/pdf", "application/zip", "video/mp4", "font/woff2"]) {
    assertEquals(bodyKind(t, bytes("x")), "binary", t);
  }
  assertEquals(bodyKind("text/plain", new Uint8Array([1, 0, 2])), "binary");
});

Deno.test("a body without a useful type is sniffed", () => {
  assertEquals(bodyKind(null, bytes("  <!DOCTYPE html><title>t</title>")), "html");
  assertEquals(bodyKind("application/octet-stream", bytes("just words")), "text");
  assertEquals(bodyKind(null, new Uint8Array([0xff, 0xfe, 0xfd, 0x80])), "binary");
});

Deno.test("a body is decoded by the charset of its header or its meta tag", () => {
  assertEquals(decodeBody(new Uint8Array([0xe9]), "text/plain; charset=ISO-8859-1", false), "é");
  const page = new Uint8Array([...bytes('<meta charset="windows-1252"><p>'), 0x80]);
  assertEquals(decodeBody(page, "text/html", true).endsWith("€"), true);
  assertEquals(decodeBody(bytes("é"), "text/plain; charset=no-such-charset", false), "é");
});
