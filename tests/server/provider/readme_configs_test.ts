/**
 * Every config of the README's "Pointing scv at a model" section is valid and works: each is
 * loaded as a config file and runs one turn against a scripted server of its wire API, with only
 * the host of `base_url` moved to 127.0.0.1.
 */
import { assertEquals } from "../../support/assert.ts";
import { parseJsonc } from "../../../server/jsonc.ts";
import { PROVIDER_DEFAULTS, validateConfigObject } from "../../../server/config.ts";
import { MockOpenAI, text } from "../../support/mock_openai.ts";
import { ServerProcess } from "../../support/server_process.ts";
import { ANTHROPIC, RESPONSES } from "./api_dialects.ts";

const README = new URL("../../../README.md", import.meta.url);

/** The section's jsonc blocks, each named by its first comment line. */
function readmeConfigs(): Array<{ name: string; config: Record<string, unknown> }> {
  const text = Deno.readTextFileSync(README);
  const start = text.indexOf("## Pointing scv at a model");
  // The provider configs come before the general "Configuration comes from" part.
  const section = text.slice(start, text.indexOf("Configuration comes from", start));
  return [...section.matchAll(/```jsonc\n\/\/ (.+)\n([\s\S]*?)```/g)].map((m) => ({
    name: m[1]!,
    config: parseJsonc(m[2]!) as Record<string, unknown>,
  }));
}

const configs = readmeConfigs();

Deno.test("the README names a config for every provider CONTRACT.md lists", () => {
  const names = configs.map((c) => c.name.split(" (")[0]!.split(",")[0]);
  assertEquals(names, [
    "OpenAI",
    "Azure OpenAI",
    "Ollama",
    "llama.cpp's server",
    "vLLM",
    "LM Studio",
    "OpenRouter",
    "DeepSeek",
    "Groq",
    "Mistral",
    "Together",
    "Fireworks",
    "Gemini",
    "Anthropic",
    "OpenAI Responses API",
  ]);
});

for (const { name, config } of configs) {
  Deno.test(`the README's ${name} config loads and runs a turn`, async () => {
    validateConfigObject(config, `README "${name}"`);
    const provider = (config.provider ?? "openai-chat") as keyof typeof PROVIDER_DEFAULTS;
    const reply = provider === "anthropic"
      ? ANTHROPIC.text("Hi.")
      : provider === "openai-responses"
      ? RESPONSES.text("Hi.")
      : text("Hi.");
    const mock = await MockOpenAI.start(() => reply);
    const url = new URL(String(config.base_url ?? PROVIDER_DEFAULTS[provider].base_url));
    const keyVar = String(config.api_key_env ?? PROVIDER_DEFAULTS[provider].api_key_env);
    const server = await ServerProcess.start({
      config: { ...config, base_url: new URL(mock.baseUrl).origin + url.pathname + url.search },
      env: { [keyVar]: "test-key-0123456789", AZURE_OPENAI_API_KEY: "test-key-0123456789" },
    });
    try {
      const { sessionId } = await server.open();
      const { done, t } = await server.runTurn(sessionId, "hello");
      assertEquals(done.type, "turn.completed", JSON.stringify(done));
      assertEquals(server.eventOf(t.turn_id, "assistant.completed").content, "Hi.");
      assertEquals(mock.requests[0]!.body.model, config.model);
      assertEquals(mock.requests[0]!.path.startsWith(url.pathname), true, mock.requests[0]!.path);
    } finally {
      await server.kill();
      await mock.close();
    }
  });
}
