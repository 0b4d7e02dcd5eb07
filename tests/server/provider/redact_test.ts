/** Unit tests of redaction: keys, header values and URL credentials never reach a message. */
import { assert, assertEquals } from "../../support/assert.ts";
import { stripUrlCredentials } from "../../../server/error_text.ts";
import { Redactor } from "../../../server/provider/redact.ts";

Deno.test("the redactor removes every occurrence of each secret", () => {
  const r = new Redactor(["sk-secret-1234", "hdr-value-99", undefined]);
  assertEquals(
    r.redact("key sk-secret-1234 and hdr-value-99 and sk-secret-1234"),
    "key [redacted] and [redacted] and [redacted]",
  );
});

Deno.test("the redactor also removes a secret echoed URL-encoded or JSON-escaped", () => {
  const secret = 'pa ss/"word"';
  const r = new Redactor([secret]);
  const text = `q=${encodeURIComponent(secret)} body=${JSON.stringify(secret)}`;
  assert(!r.redact(text).includes("word"), r.redact(text));
});

Deno.test("URL credentials are stripped from any message", () => {
  assertEquals(
    stripUrlCredentials("Cannot reach http://alice:s3cr3t@10.0.0.1:8080/v1/chat/completions"),
    "Cannot reach http://[redacted]@10.0.0.1:8080/v1/chat/completions",
  );
  assertEquals(stripUrlCredentials("https://token@host/v1"), "https://[redacted]@host/v1");
  assertEquals(stripUrlCredentials("mail me at a@b.c"), "mail me at a@b.c");
});

Deno.test("a message is redacted before it is cut, so no fragment of the key survives the cut", () => {
  const key = "sk-" + "k".repeat(40);
  const r = new Redactor([key]);
  // The cut falls in the middle of the key: cutting first would leave "sk-kkkk…" in the text.
  const msg = "x".repeat(20) + key + " tail";
  const safe = r.safe(msg, 30);
  assert(!safe.includes("sk-k"), safe);
  assertEquals(safe, "x".repeat(20) + "[redacted]…");
});

Deno.test("very short secrets are not searched for", () => {
  assertEquals(new Redactor(["ab"]).redact("abc"), "abc");
});
