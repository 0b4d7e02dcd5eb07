/** Redaction of secrets from every line written to disk. */
import assert from "node:assert/strict";
import { configSecrets, REDACTED, Redactor } from "../../../server/sessions/redact.ts";

Deno.test("a secret is replaced wherever it appears in a line", () => {
  const r = new Redactor(["sk-abc"]);
  const line = JSON.stringify({ a: "sk-abc", b: ["x sk-abc y sk-abc"] });
  assert.equal(r.line(line), JSON.stringify({ a: REDACTED, b: [`x ${REDACTED} y ${REDACTED}`] }));
});

Deno.test("a secret holding JSON escapes is found in its escaped form", () => {
  const secret = 'k"ey\\with\nescapes';
  const r = new Redactor([secret]);
  const out = r.line(JSON.stringify({ output: `before ${secret} after` }));
  assert.ok(!out.includes(JSON.stringify(secret).slice(1, -1)));
  assert.equal(JSON.parse(out).output, `before ${REDACTED} after`);
});

Deno.test("a secret containing another is replaced whole", () => {
  const r = new Redactor(["abc", "xxabcxx"]);
  assert.equal(r.line("xxabcxx abc"), `${REDACTED} ${REDACTED}`);
});

Deno.test("empty secrets are ignored", () => {
  const r = new Redactor(["", ""]);
  assert.equal(r.empty, true);
  assert.equal(r.line("text"), "text");
});

Deno.test("config secrets are the key's value and the provider header values, expanded too", () => {
  const env = (n: string) => ({ MY_KEY: "sk-1", TOKEN: "tok-2" } as Record<string, string>)[n];
  const got = configSecrets({
    api_key_env: "MY_KEY",
    provider_headers: { "api-key": "${TOKEN}", "x-static": "static-value" },
  }, env);
  for (const s of ["sk-1", "tok-2", "static-value"]) assert.ok(got.includes(s), s);
  assert.deepEqual(configSecrets({ api_key_env: "UNSET" }, env), []);
});
