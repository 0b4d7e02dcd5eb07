/** Unit tests of building the configured provider: header expansion and secret variables. */
import { assert, assertEquals, assertMatch, assertRejects } from "../../support/assert.ts";
import { expandHeaders, providerFromConfig } from "../../../server/provider/from_config.ts";
import { providerSecretEnv } from "../../../server/provider/secret_env.ts";
import { AnthropicProvider } from "../../../server/provider/anthropic.ts";
import { OpenAIResponsesProvider } from "../../../server/provider/openai_responses.ts";
import { OpenAIProvider } from "../../../server/provider/openai.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { ProviderError } from "../../../server/provider/types.ts";

const env = (vars: Record<string, string>) => (n: string) => vars[n];

Deno.test("${VAR} in a header value is replaced from the environment and counts as a secret", () => {
  const r = expandHeaders(
    { "api-key": "${K}", auth: "Token ${T}", app: "scv" },
    env({ K: "k-secret", T: "t-secret" }),
  );
  assertEquals(r.headers, { "api-key": "k-secret", auth: "Token t-secret", app: "scv" });
  assert(
    r.secrets.includes("k-secret") && r.secrets.includes("t-secret") &&
      r.secrets.includes("Token t-secret"),
  );
  assert(!r.secrets.includes("scv"), "a literal value is not a secret");
  assertEquals(r.vars, ["K", "T"]);
});

Deno.test("a header naming an unset variable is a clear error", () => {
  try {
    expandHeaders({ "api-key": "${NOPE}" }, env({}));
    throw new Error("expected an error");
  } catch (e) {
    assertMatch(String(e), /provider_headers "api-key": environment variable NOPE is not set/);
  }
});

Deno.test("the key's variable and every header variable are kept from tools", () => {
  const config = { ...DEFAULT_CONFIG, provider_headers: { a: "${A_TOK}", b: "x ${B} ${A_TOK}" } };
  assertEquals(providerSecretEnv(config), ["OPENAI_API_KEY", "A_TOK", "B"]);
});

Deno.test("the provider key chooses the wire API", async () => {
  const e = env({});
  assert(await providerFromConfig({ ...DEFAULT_CONFIG }, e) instanceof OpenAIProvider);
  assert(
    await providerFromConfig({ ...DEFAULT_CONFIG, provider: "anthropic" }, e) instanceof
      AnthropicProvider,
  );
  assert(
    await providerFromConfig({ ...DEFAULT_CONFIG, provider: "openai-responses" }, e) instanceof
      OpenAIResponsesProvider,
  );
});

Deno.test("an expanded header value echoed in an error is redacted like the key", async () => {
  const secret = "hdr-secret-0123456789";
  // The header comes from the config through the factory; the server echoes it back.
  const provider = await providerFromConfig({
    ...DEFAULT_CONFIG,
    base_url: "http://127.0.0.1:1/v1",
    provider_headers: { "x-token": "${TOK}" },
  }, env({ TOK: secret }));
  assert(provider instanceof OpenAIProvider);
  const echo = new OpenAIProvider({
    baseUrl: "http://h/v1",
    idleTimeoutMs: 5000,
    ...expandHeaders({ "x-token": "${TOK}" }, env({ TOK: secret })),
    fetch: (_u, init) =>
      Promise.resolve(
        new Response(
          JSON.stringify({
            error: { message: `bad token ${new Headers(init?.headers).get("x-token")}` },
          }),
          { status: 403 },
        ),
      ),
  });
  const err = await assertRejects(async () => {
    for await (
      const _ of echo.stream({
        model: "m",
        messages: [],
        tools: [],
        signal: new AbortController().signal,
      })
    ) {
      // The error comes before any event.
    }
  }, ProviderError);
  assertEquals(err.message, "Provider returned HTTP 403: bad token [redacted]");
});
