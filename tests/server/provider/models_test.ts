import { assert, assertEquals } from "../../support/assert.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { listModels, MAX_MODELS_BYTES } from "../../../server/provider/models.ts";

async function withServer(
  handler: (req: Request) => Response,
  fn: (baseUrl: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    await fn(`http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/v1`);
  } finally {
    await server.shutdown();
  }
}

const env = (values: Record<string, string>) => (name: string) => values[name];

Deno.test("the model list comes from GET {base_url}/models with the key as a bearer token", async () => {
  let auth: string | null = null;
  await withServer((req) => {
    auth = req.headers.get("authorization");
    assertEquals(new URL(req.url).pathname, "/v1/models");
    return Response.json({ data: [{ id: "zeta" }, { id: "alpha" }] });
  }, async (base) => {
    const list = await listModels(
      { ...DEFAULT_CONFIG, base_url: base },
      env({ OPENAI_API_KEY: "sk-test-123" }),
    );
    assertEquals(list, { models: ["alpha", "zeta"] });
  });
  assertEquals(auth, "Bearer sk-test-123");
});

Deno.test("an HTTP error listing models is a message naming the status, never the key", async () => {
  await withServer(() => new Response("nope", { status: 404 }), async (base) => {
    const list = await listModels(
      { ...DEFAULT_CONFIG, base_url: base.replace("http://", "http://user:pw@") },
      env({ OPENAI_API_KEY: "sk-secret" }),
    );
    assert("error" in list && list.error.endsWith("answered HTTP 404"), JSON.stringify(list));
    assert(!list.error.includes("pw@") && !list.error.includes("sk-secret"), list.error);
  });
});

Deno.test("a model list one byte over the bound is refused", async () => {
  const body = JSON.stringify({ data: [{ id: "x".repeat(MAX_MODELS_BYTES) }] });
  await withServer(() => new Response(body), async (base) => {
    const list = await listModels({ ...DEFAULT_CONFIG, base_url: base }, env({}));
    assert("error" in list && list.error.includes("over 1 MiB"), JSON.stringify(list));
  });
});

Deno.test("an answer without a data list is a clear error", async () => {
  await withServer(() => Response.json({ models: "none" }), async (base) => {
    const list = await listModels({ ...DEFAULT_CONFIG, base_url: base }, env({}));
    assert("error" in list && list.error.includes('no "data" list'), JSON.stringify(list));
  });
});

Deno.test("the model list is asked with the configured provider_headers, their variables expanded", async () => {
  let got: string | null = null;
  await withServer((req) => {
    got = req.headers.get("api-key");
    return Response.json({ data: [{ id: "a" }] });
  }, async (base) => {
    const list = await listModels(
      { ...DEFAULT_CONFIG, base_url: base, provider_headers: { "api-key": "${AZ_KEY}" } },
      env({ AZ_KEY: "az-secret" }),
    );
    assertEquals(list, { models: ["a"] });
  });
  assertEquals(got, "az-secret");
});

Deno.test("a provider_headers variable that is not set is a message naming it, nothing is sent", async () => {
  let asked = false;
  await withServer(() => {
    asked = true;
    return Response.json({ data: [] });
  }, async (base) => {
    const list = await listModels(
      { ...DEFAULT_CONFIG, base_url: base, provider_headers: { "api-key": "${AZ_KEY}" } },
      env({}),
    );
    assert(
      "error" in list && list.error.includes("environment variable AZ_KEY is not set"),
      JSON.stringify(list),
    );
  });
  assertEquals(asked, false);
});
