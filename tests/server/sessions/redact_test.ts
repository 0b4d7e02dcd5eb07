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

Deno.test("config secrets are the key's value and the provider header values taken from the environment", () => {
  const env = (n: string) =>
    ({ MY_KEY: "sk-key-0001", TOKEN: "tok-00002" } as Record<string, string>)[n];
  const got = configSecrets({
    api_key_env: "MY_KEY",
    provider_headers: { "api-key": "${TOKEN}", "x-auth": "Bearer ${TOKEN}" },
  }, env);
  for (const s of ["sk-key-0001", "tok-00002", "Bearer tok-00002"]) assert.ok(got.includes(s), s);
  assert.deepEqual(configSecrets({ api_key_env: "UNSET" }, env), []);
});

Deno.test("a dummy key shorter than 8 characters is not a secret to redact on disk", () => {
  for (const key of ["x", "k", "none", "test", "EMPTY", "ollama", "1234567"]) {
    assert.deepEqual(configSecrets({ api_key_env: "K" }, () => key), [], key);
  }
  assert.deepEqual(configSecrets({ api_key_env: "K" }, () => "12345678"), ["12345678"]);
});

Deno.test("a literal provider_headers value is configuration, not a secret", () => {
  const got = configSecrets({
    api_key_env: "UNSET",
    provider_headers: { "X-Title": "scv", "HTTP-Referer": "https://example.org" },
  }, () => undefined);
  assert.deepEqual(got, []);
});

Deno.test("a secret that spells a record's key or literal leaves the line valid JSON", () => {
  for (const secret of ["t", "true", "1", "role", "content"]) {
    const r = new Redactor([secret]);
    const record = {
      t: "msg",
      seq: 1,
      ok: true,
      message: { role: "user", content: "a true 1 role" },
    };
    const out = JSON.parse(r.line(JSON.stringify(record) + "\n"));
    assert.equal(out.t, "msg", secret);
    assert.equal(out.seq, 1, secret);
    assert.equal(out.ok, true, secret);
    assert.equal(out.message.role, "user".replaceAll(secret, REDACTED), secret);
    assert.equal(out.message.content, "a true 1 role".replaceAll(secret, REDACTED), secret);
  }
});

Deno.test("the fields naming a session and its workspace are never redacted", () => {
  const r = new Redactor(["ollama"]);
  const header = {
    t: "header",
    v: 1,
    session_id: "s",
    cwd: "/home/u/ollama-tools",
    model: "ollama/qwen3",
  };
  const out = JSON.parse(r.line(JSON.stringify({ ...header, title: "ask ollama" })));
  assert.equal(out.cwd, "/home/u/ollama-tools");
  assert.equal(out.model, "ollama/qwen3");
  assert.equal(out.title, `ask ${REDACTED}`);
});
