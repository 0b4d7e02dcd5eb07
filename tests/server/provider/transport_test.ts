/** The HTTP setup every provider shares (server/provider/transport.ts). */
import { assertEquals } from "../../support/assert.ts";
import { providerTransport } from "../../../server/provider/transport.ts";

function capturing() {
  const seen: { url: string; headers: Record<string, string> }[] = [];
  const fetch = ((url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), headers: init?.headers as Record<string, string> });
    return Promise.resolve(new Response("data: {}\n\n", { status: 200 }));
  }) as typeof globalThis.fetch;
  return { seen, fetch };
}

Deno.test("a provider's request goes to its path with defaults, provider_headers, wire headers and key in that order", async () => {
  const { seen, fetch } = capturing();
  const { http } = providerTransport({
    baseUrl: "http://127.0.0.1:9/v1/",
    apiKey: "sk-key",
    headers: { "Anthropic-Version": "2099-01-01", "Content-Type": "text/plain", "X-Api-Key": "no" },
    idleTimeoutMs: 5000,
    fetch,
  }, {
    path: "/messages",
    defaults: { "anthropic-version": "2023-06-01", "x-extra": "1" },
    auth: { "x-api-key": "sk-key" },
  });
  const res = await http.open("{}", new AbortController().signal);
  await res.body.cancel();
  assertEquals(seen[0]!.url, "http://127.0.0.1:9/v1/messages");
  assertEquals(seen[0]!.headers, {
    "anthropic-version": "2099-01-01",
    "x-extra": "1",
    "content-type": "application/json",
    "x-api-key": "sk-key",
    "accept": "text/event-stream",
  });
});

Deno.test("a provider's redactor hides the key, the expanded header values and the URL's password", () => {
  const { redactor } = providerTransport({
    baseUrl: "http://bob:hunter22@127.0.0.1:9/v1",
    apiKey: "sk-key1",
    secrets: ["tok-value"],
    idleTimeoutMs: 5000,
  }, { path: "/responses", auth: {} });
  const text = redactor.redact("sk-key1 tok-value hunter22");
  assertEquals(
    text.includes("sk-key1") || text.includes("tok-value") || text.includes("hunter22"),
    false,
  );
});
