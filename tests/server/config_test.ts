/**
 * Configuration against CONTRACT.md ("Configuration", "Config values"): sources in order,
 * later wins; JSONC files; every bad value is a startup error naming the file, the key, what
 * was expected and what was found.
 */
import assert from "node:assert/strict";
import {
  type Config,
  ConfigError,
  DEFAULT_CONFIG,
  loadConfig,
  parseConfigText,
  validateConfigObject,
} from "../../server/config.ts";

/** Injectable sources from a map of env vars and a map of files. */
function sources(env: Record<string, string>, files: Record<string, string>) {
  return {
    env: (name: string) => env[name],
    readTextFile: (path: string) => files[path],
  };
}

const XDG = "/xdg/scv/config.jsonc";
const HOME_FILE = "/home/u/.config/scv/config.jsonc";

/** The ConfigError `fn` throws, or a failure when it throws none. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected a ConfigError, got ${e}`);
    return e;
  }
  assert.fail("expected a ConfigError, got none");
}

Deno.test("defaults are the values of CONTRACT.md", () => {
  const expected: Config = {
    model: "gpt-4.1-mini",
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
    provider: "openai-chat",
    provider_headers: {},
    context_max_tokens: 128000,
    max_steps: 32,
    approval_policy: "on-risk",
    max_client_frame_bytes: 1048576,
    max_prompt_bytes: 262144,
    max_server_frame_bytes: 8388608,
    max_history_bytes: 16777216,
    max_tool_output_bytes: 65536,
    max_image_bytes: 5242880,
    tool_timeout_ms: 120000,
    provider_timeout_ms: 120000,
    provider_startup_timeout_ms: 120000,
    max_transcript_bytes: 8388608,
    max_transcript_items: 10000,
    max_prompt_history_bytes: 1048576,
    max_prompt_history_items: 200,
    mcp_servers: {},
    sandbox: "auto",
    sandbox_network: false,
    sandbox_writable_roots: [],
    sandbox_deny_read: [
      "~/.ssh",
      "~/.gnupg",
      "~/.aws",
      "~/.azure",
      "~/.config/gcloud",
      "~/.config/gh",
      "~/.kube",
      "~/.docker/config.json",
      "~/.netrc",
      "~/.git-credentials",
      "~/.npmrc",
      "~/.pypirc",
      "~/.cargo/credentials.toml",
      "~/.local/share/keyrings",
      "~/.password-store",
      "~/.mozilla",
      "~/.config/google-chrome",
      "~/.config/chromium",
      "~/.config/BraveSoftware",
      "~/.config/microsoft-edge",
      "~/.config/vivaldi",
      "~/snap/firefox",
      "~/snap/chromium",
    ],
    sandbox_readable_roots: [],
    sandbox_limits: { memory_mb: 4096, processes: 512, file_size_mb: 1024, cpu_seconds: null },
    shell_env_passthrough: [],
    persist_sessions: true,
    session_retention_days: 30,
    max_sessions: 500,
    checkpoints: true,
    checkpoint_max_file_bytes: 4194304,
    checkpoint_max_bytes: 268435456,
    pricing: {},
    hooks: {},
    notify: true,
    web_fetch_allow: ["*"],
    web_fetch_timeout_ms: 30000,
    web_fetch_max_bytes: 10485760,
  };
  assert.deepEqual({ ...DEFAULT_CONFIG }, expected);
  assert.deepEqual(loadConfig({}, sources({}, {})), expected);
});

Deno.test("config sources apply in order: defaults, XDG, SCV_CONFIG, --config, env, flags", () => {
  const files = {
    [XDG]: '{ "model": "xdg", "max_steps": 1, "tool_timeout_ms": 11, "approval_policy": "never" }',
    "/env.jsonc": '{ "model": "scv-config", "max_steps": 2, "provider_timeout_ms": 22 }',
    "/flag.jsonc": '{ "model": "flag-file", "max_steps": 3, "base_url": "http://file:1/v1" }',
  };
  const env = {
    XDG_CONFIG_HOME: "/xdg",
    HOME: "/home/u",
    SCV_CONFIG: "/env.jsonc",
    SCV_MODEL: "env-model",
    OPENAI_BASE_URL: "http://env:2/v1",
  };
  const src = sources(env, files);

  // Each layer wins over the ones before it, key by key.
  const all = loadConfig(
    { config: "/flag.jsonc", model: "flag-model", approvalPolicy: "always" },
    src,
  );
  assert.equal(all.model, "flag-model");
  assert.equal(all.approval_policy, "always");
  assert.equal(all.base_url, "http://env:2/v1");
  assert.equal(all.max_steps, 3);
  assert.equal(all.provider_timeout_ms, 22);
  assert.equal(all.tool_timeout_ms, 11);
  assert.equal(all.context_max_tokens, DEFAULT_CONFIG.context_max_tokens);

  const noFlags = loadConfig({ config: "/flag.jsonc" }, src);
  assert.equal(noFlags.model, "env-model");
  assert.equal(noFlags.approval_policy, "never");

  const noEnv = loadConfig(
    { config: "/flag.jsonc" },
    sources({ XDG_CONFIG_HOME: "/xdg", SCV_CONFIG: "/env.jsonc" }, files),
  );
  assert.equal(noEnv.model, "flag-file");
  assert.equal(noEnv.base_url, "http://file:1/v1");

  const noFlagFile = loadConfig(
    {},
    sources({ XDG_CONFIG_HOME: "/xdg", SCV_CONFIG: "/env.jsonc" }, files),
  );
  assert.equal(noFlagFile.model, "scv-config");
  assert.equal(noFlagFile.max_steps, 2);

  const userOnly = loadConfig({}, sources({ XDG_CONFIG_HOME: "/xdg" }, files));
  assert.equal(userOnly.model, "xdg");
  assert.equal(userOnly.max_steps, 1);
});

Deno.test("the user config file is ~/.config/scv/config.jsonc when XDG_CONFIG_HOME is unset", () => {
  const files = { [HOME_FILE]: '{ "max_steps": 7 }', [XDG]: '{ "max_steps": 8 }' };
  assert.equal(loadConfig({}, sources({ HOME: "/home/u" }, files)).max_steps, 7);
  assert.equal(
    loadConfig({}, sources({ HOME: "/home/u", XDG_CONFIG_HOME: "/xdg" }, files)).max_steps,
    8,
  );
});

Deno.test("config files accept JSONC comments and trailing commas", () => {
  const text = `// scv settings
{
  /* the model */
  "model": "local", // trailing comment
  "max_steps": 4,
  "approval_policy": "always",
}
`;
  const c = loadConfig({ config: "/c.jsonc" }, sources({}, { "/c.jsonc": text }));
  assert.equal(c.model, "local");
  assert.equal(c.max_steps, 4);
  assert.equal(c.approval_policy, "always");
});

Deno.test("an unknown key is an error naming the file and the key", () => {
  const e = configError(() =>
    loadConfig(
      { config: "/x.jsonc" },
      sources({}, { "/x.jsonc": '{ "model": "m", "max_stepz": 3 }' }),
    )
  );
  assert.match(e.message, /"\/x\.jsonc"/);
  assert.match(e.message, /"max_stepz"/);
  assert.match(e.message, /unknown/i);
});

Deno.test("an unknown key in the user config file is an error too", () => {
  const e = configError(() =>
    loadConfig({}, sources({ XDG_CONFIG_HOME: "/xdg" }, { [XDG]: '{ "colour": "red" }' }))
  );
  assert.match(e.message, new RegExp(XDG.replaceAll(".", "\\.")));
  assert.match(e.message, /"colour"/);
});

Deno.test("a negative size is an error in the documented style", () => {
  const e = configError(() => parseConfigText('{ "max_steps": -1 }', "x.jsonc"));
  assert.equal(
    e.message,
    'Cannot load config "x.jsonc": "max_steps" must be a positive integer, got -1',
  );
});

Deno.test("every size, count and time must be a positive integer", () => {
  const keys = Object.entries(DEFAULT_CONFIG).filter(([, v]) => typeof v === "number").map((
    [k],
  ) => k);
  assert.equal(keys.length, 21);
  assert.ok(keys.includes("provider_startup_timeout_ms"));
  const bad: Array<[unknown, string]> = [
    [0, "0"],
    [-5, "-5"],
    [1.5, "1.5"],
    ["100", '"100"'],
    [true, "true"],
    [null, "null"],
    [[1], "[1]"],
  ];
  for (const key of keys) {
    for (const [value, shown] of bad) {
      const e = configError(() => parseConfigText(JSON.stringify({ [key]: value }), "f.jsonc"));
      assert.match(e.message, /^Cannot load config "f\.jsonc": /, e.message);
      assert.ok(e.message.includes(`"${key}"`), e.message);
      assert.ok(e.message.includes("must be a positive integer"), e.message);
      assert.ok(e.message.endsWith(`got ${shown}`), e.message);
    }
  }
});

Deno.test("a string setting of the wrong type is an error naming key, expectation and value", () => {
  for (const key of ["model", "base_url", "api_key_env"]) {
    const e = configError(() => parseConfigText(`{ "${key}": 42 }`, "s.jsonc"));
    assert.match(e.message, /"s\.jsonc"/);
    assert.ok(e.message.includes(`"${key}"`), e.message);
    assert.match(e.message, /must be/);
    assert.match(e.message, /got 42$/);
  }
  const empty = configError(() => parseConfigText('{ "model": "" }', "s.jsonc"));
  assert.match(empty.message, /"model" must be a non-empty string, got ""/);
});

Deno.test("base_url must be an absolute http(s) URL", () => {
  for (const url of ["not a url", "/v1", "ftp://example.com/v1", "file:///etc/passwd"]) {
    const e = configError(() => parseConfigText(JSON.stringify({ base_url: url }), "u.jsonc"));
    assert.ok(e.message.includes('"base_url"'), e.message);
    assert.ok(e.message.includes(JSON.stringify(url)), e.message);
  }
  for (const url of ["http://localhost:11434/v1", "https://openrouter.ai/api/v1"]) {
    assert.equal(parseConfigText(JSON.stringify({ base_url: url }), "u.jsonc").base_url, url);
  }
});

Deno.test("approval_policy must be always, on-risk or never", () => {
  for (const policy of ["always", "on-risk", "never"]) {
    assert.equal(
      parseConfigText(JSON.stringify({ approval_policy: policy }), "p.jsonc").approval_policy,
      policy,
    );
  }
  const e = configError(() => parseConfigText('{ "approval_policy": "sometimes" }', "p.jsonc"));
  assert.match(e.message, /"p\.jsonc"/);
  assert.match(e.message, /"approval_policy"/);
  assert.match(e.message, /always/);
  assert.match(e.message, /got "sometimes"$/);
  const flag = configError(() => loadConfig({ approvalPolicy: "yes" }, sources({}, {})));
  assert.match(flag.message, /"approval_policy"/);
  assert.match(flag.message, /got "yes"$/);
});

Deno.test("a bad value from the environment is an error", () => {
  const e = configError(() => loadConfig({}, sources({ OPENAI_BASE_URL: "localhost:8080" }, {})));
  assert.match(e.message, /base_url|OPENAI_BASE_URL/);
  assert.match(e.message, /localhost:8080/);
});

Deno.test("a missing --config file is an error", () => {
  const e = configError(() => loadConfig({ config: "/missing.jsonc" }, sources({}, {})));
  assert.match(e.message, /"\/missing\.jsonc"/);
  assert.match(e.message, /not found/);
});

Deno.test("a missing SCV_CONFIG file is an error", () => {
  const e = configError(() => loadConfig({}, sources({ SCV_CONFIG: "/gone.jsonc" }, {})));
  assert.match(e.message, /"\/gone\.jsonc"/);
});

Deno.test("a missing user config file is fine", () => {
  const c = loadConfig({}, sources({ XDG_CONFIG_HOME: "/nowhere", HOME: "/nobody" }, {}));
  assert.deepEqual(c, { ...DEFAULT_CONFIG });
});

Deno.test("a missing --config file on disk is an error; a missing user file is not", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const env = (name: string) => name === "XDG_CONFIG_HOME" ? dir : undefined;
    assert.deepEqual(loadConfig({}, { env }), { ...DEFAULT_CONFIG });
    configError(() => loadConfig({ config: `${dir}/absent.jsonc` }, { env }));
    Deno.mkdirSync(`${dir}/scv`);
    Deno.writeTextFileSync(`${dir}/scv/config.jsonc`, '{ "max_steps": 9, }');
    assert.equal(loadConfig({}, { env }).max_steps, 9);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a syntax error reports the file, line and column", () => {
  const text = '{\n  "model": "m",\n  "max_steps" 3\n}\n';
  const e = configError(() =>
    loadConfig({ config: "/bad.jsonc" }, sources({}, { "/bad.jsonc": text }))
  );
  assert.match(e.message, /"\/bad\.jsonc"/);
  assert.match(e.message, /line 3, column 15/);
});

Deno.test("a syntax error on the first line reports column from 1", () => {
  const e = configError(() => parseConfigText('{ "a": }', "one.jsonc"));
  assert.match(e.message, /line 1, column 8/);
});

Deno.test("a config file whose top level is not an object is an error", () => {
  for (const text of ["[]", "3", '"model"', "null"]) {
    const e = configError(() => parseConfigText(text, "top.jsonc"));
    assert.match(e.message, /"top\.jsonc"/);
  }
});

Deno.test("small limits are legal so that tests can reach every limit", () => {
  const c = parseConfigText(
    JSON.stringify({
      max_server_frame_bytes: 4096,
      context_max_tokens: 2000,
      max_client_frame_bytes: 1,
      max_prompt_bytes: 1,
      max_history_bytes: 1,
      max_tool_output_bytes: 1,
      max_steps: 1,
      tool_timeout_ms: 1,
      provider_timeout_ms: 1,
    }),
    "small.jsonc",
  );
  assert.equal(c.max_server_frame_bytes, 4096);
  assert.equal(c.context_max_tokens, 2000);
  assert.equal(c.max_steps, 1);
});

Deno.test("an error in a later source stops loading: nothing starts half-configured", () => {
  const files = { "/ok.jsonc": '{ "model": "fine" }', "/bad.jsonc": '{ "max_steps": 0 }' };
  const e = configError(() =>
    loadConfig({ config: "/bad.jsonc" }, sources({ SCV_CONFIG: "/ok.jsonc" }, files))
  );
  assert.match(e.message, /"\/bad\.jsonc": "max_steps" must be a positive integer, got 0/);
});

Deno.test("a bad environment value names the variable that holds it", () => {
  const env = (name: string) => name === "OPENAI_BASE_URL" ? "localhost:8080" : undefined;
  try {
    loadConfig({}, { env, readTextFile: () => undefined });
    throw new Error("expected a ConfigError");
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    if (!e.message.includes("environment variable OPENAI_BASE_URL")) throw e;
  }
});

Deno.test("timeouts past what a timer can hold are a config error", () => {
  for (const key of ["tool_timeout_ms", "provider_timeout_ms"]) {
    assert.throws(
      () => parseConfigText(JSON.stringify({ [key]: 2 ** 31 }), "t.jsonc"),
      (e: unknown) => e instanceof ConfigError && e.message.includes(`"${key}"`),
    );
    assert.equal(
      parseConfigText(JSON.stringify({ [key]: 2 ** 31 - 1 }), "t.jsonc")[key as "tool_timeout_ms"],
      2 ** 31 - 1,
    );
  }
});

Deno.test("a relative XDG_CONFIG_HOME is ignored, as the XDG spec says", () => {
  const c = loadConfig(
    {},
    sources({ XDG_CONFIG_HOME: "rel", HOME: "/home/u" }, {
      "rel/scv/config.jsonc": '{ "model": "from-rel" }',
      "/home/u/.config/scv/config.jsonc": '{ "model": "from-home" }',
    }),
  );
  assert.equal(c.model, "from-home");
});

Deno.test("an empty --config path is an error, not 'no file'", () => {
  assert.throws(
    () => loadConfig({ config: "" }, sources({}, {})),
    (e: Error) => e instanceof ConfigError && /--config was given an empty path/.test(e.message),
  );
});

Deno.test("a whitespace-only model and an api_key_env that is no variable name are errors", () => {
  assert.throws(() => parseConfigText('{ "model": "   " }', "x.jsonc"), /"model" must be/);
  for (const name of ["A B", "1KEY", "KEY=x", ""]) {
    assert.throws(
      () => parseConfigText(JSON.stringify({ api_key_env: name }), "x.jsonc"),
      /"api_key_env" must be an environment variable name/,
      name,
    );
  }
  assert.equal(parseConfigText('{ "api_key_env": "MY_KEY_2" }', "x.jsonc").api_key_env, "MY_KEY_2");
});

Deno.test("numbers too large to be exact say so instead of showing null", () => {
  assert.throws(
    () => parseConfigText('{ "context_max_tokens": 1e400 }', "x.jsonc"),
    (e: Error) =>
      e.message.endsWith('"context_max_tokens" must be a positive integer, got Infinity'),
  );
  assert.throws(
    () => parseConfigText('{ "context_max_tokens": 1e20 }', "x.jsonc"),
    /got 100000000000000000000 \(beyond 9007199254740991/,
  );
});

/** Like {@link sources}, files first. */
function fileSources(files: Record<string, string>, env: Record<string, string>) {
  return sources(env, files);
}

Deno.test("provider anthropic defaults base_url and api_key_env to Anthropic's", () => {
  const c = loadConfig(
    {},
    fileSources({ "/c.jsonc": '{ "provider": "anthropic" }' }, { SCV_CONFIG: "/c.jsonc" }),
  );
  assert.equal(c.base_url, "https://api.anthropic.com/v1");
  assert.equal(c.api_key_env, "ANTHROPIC_API_KEY");
});

Deno.test("provider anthropic keeps a base_url and api_key_env the file gave", () => {
  const file =
    '{ "provider": "anthropic", "base_url": "http://proxy:1/v1", "api_key_env": "MY_KEY" }';
  const c = loadConfig({}, fileSources({ "/c.jsonc": file }, { SCV_CONFIG: "/c.jsonc" }));
  assert.deepEqual([c.base_url, c.api_key_env], ["http://proxy:1/v1", "MY_KEY"]);
});

Deno.test("provider anthropic reads ANTHROPIC_BASE_URL and ignores OPENAI_BASE_URL", () => {
  const c = loadConfig(
    {},
    fileSources({ "/c.jsonc": '{ "provider": "anthropic" }' }, {
      SCV_CONFIG: "/c.jsonc",
      OPENAI_BASE_URL: "http://openai:1/v1",
      ANTHROPIC_BASE_URL: "http://anthropic:2/v1",
    }),
  );
  assert.equal(c.base_url, "http://anthropic:2/v1");
});

Deno.test("an unknown provider is a startup error listing the known ones", () => {
  const e = configError(() => validateConfigObject({ provider: "gemini" }, "x.jsonc"));
  assert.match(
    e.message,
    /"provider" must be one of "openai-chat", "openai-responses", "anthropic", got "gemini"/,
  );
});

Deno.test("provider_headers accepts header names to string values", () => {
  const v = validateConfigObject({
    provider_headers: { "api-key": "${AZURE_KEY}", "HTTP-Referer": "https://x" },
  }, "x");
  assert.deepEqual(v.provider_headers, { "api-key": "${AZURE_KEY}", "HTTP-Referer": "https://x" });
});

Deno.test("a provider_headers value with a line break is refused without quoting the value", () => {
  const e = configError(() =>
    validateConfigObject({ provider_headers: { "x-token": "abc\r\nInjected: 1" } }, "x.jsonc")
  );
  assert.match(
    e.message,
    /"provider_headers" must be an object.*got a value with a line break for header "x-token"/,
  );
  assert.ok(!e.message.includes("Injected"), e.message);
});

Deno.test("a provider_headers name that is not an HTTP token is refused", () => {
  const e = configError(() =>
    validateConfigObject({ provider_headers: { "bad name": "v" } }, "x.jsonc")
  );
  assert.match(e.message, /got the header name "bad name"/);
});

Deno.test("a key pasted into api_key_env is refused without being printed", () => {
  const key = "sk-proj-AbCdEf0123456789AbCdEf0123456789";
  const e = configError(() => validateConfigObject({ api_key_env: key }, "x.jsonc"));
  assert.match(
    e.message,
    /"api_key_env" must be an environment variable name .* that holds the key, not the key itself/,
  );
  assert.match(e.message, /looks like a key \(not shown\)/);
  assert.ok(!e.message.includes("AbCdEf"), e.message);
});

Deno.test("a key pasted into api_key_env from a file is not printed by the startup error", () => {
  const key = "gsk_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6";
  const e = configError(() =>
    loadConfig(
      {},
      fileSources({ "/c.jsonc": JSON.stringify({ api_key_env: key }) }, { SCV_CONFIG: "/c.jsonc" }),
    )
  );
  assert.ok(!e.message.includes("a1b2c3"), e.message);
});

Deno.test("an api_key_env that is not a variable name is not echoed either", () => {
  const e = configError(() => validateConfigObject({ api_key_env: "my key" }, "x.jsonc"));
  assert.match(e.message, /got a string of 6 characters \(not shown\)/);
});

Deno.test("persist_sessions must be a boolean", () => {
  assert.equal(
    loadConfig({}, sources({ XDG_CONFIG_HOME: "/xdg" }, { [XDG]: '{ "persist_sessions": false }' }))
      .persist_sessions,
    false,
  );
  assert.throws(
    () =>
      loadConfig(
        {},
        sources({ XDG_CONFIG_HOME: "/xdg" }, { [XDG]: '{ "persist_sessions": "no" }' }),
      ),
    ConfigError,
    '"persist_sessions" must be true or false, got "no"',
  );
});

Deno.test("checkpoints must be a boolean", () => {
  assert.equal(parseConfigText('{ "checkpoints": false }', "f.jsonc").checkpoints, false);
  assert.throws(
    () => parseConfigText('{ "checkpoints": "off" }', "f.jsonc"),
    ConfigError,
    'Cannot load config "f.jsonc": "checkpoints" must be true or false, got "off"',
  );
});

Deno.test("a bad base_url with user:password@ is never echoed, even where the value is cut", () => {
  const password = "hunter2-" + "p".repeat(80);
  const e = configError(() =>
    validateConfigObject({ base_url: `ftp://alice:${password}@llm.example/v1` }, "x.jsonc")
  );
  assert.match(
    e.message,
    /"base_url" must be an absolute http\(s\) URL, got "ftp:\/\/\[redacted\]@llm/,
  );
  assert.ok(!e.message.includes("hunter2") && !e.message.includes("alice"), e.message);
});

Deno.test("an optional config location through a file is skipped like a missing one, a --config there is not found", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scv-config-" });
  try {
    const file = `${dir}/not-a-dir`;
    await Deno.writeTextFile(file, "x");
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    const c = loadConfig({}, { env: env({ XDG_CONFIG_HOME: file, HOME: file }) });
    assert.equal(c.model, DEFAULT_CONFIG.model);
    const e = configError(() => loadConfig({ config: `${file}/c.jsonc` }, { env: env({}) }));
    assert.equal(e.message, `Cannot load config "${file}/c.jsonc": file not found`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pricing entries merge by model across config files", () => {
  const c = loadConfig(
    { config: "/x.jsonc" },
    sources({ XDG_CONFIG_HOME: "/xdg" }, {
      [XDG]:
        '{ "pricing": { "a": { "input": 1, "output": 2 }, "b": { "input": 3, "output": 4 } } }',
      "/x.jsonc": '{ "pricing": { "b": { "input": 5, "output": 6, "cached_input": 0.5 } } }',
    }),
  );
  assert.deepEqual(c.pricing, {
    a: { input: 1, output: 2 },
    b: { input: 5, output: 6, cached_input: 0.5 },
  });
});

for (
  const [value, pattern] of [
    ["[]", /"pricing" must be an object of model names to prices/],
    ['{ "m": 3 }', /"pricing\.m" must be an object like/],
    ['{ "m": { "output": 1 } }', /"pricing\.m\.input" is required/],
    ['{ "m": { "input": -1, "output": 1 } }', /"pricing\.m\.input" must be a number .* got -1/],
    [
      '{ "m": { "input": "0.4", "output": 1 } }',
      /"pricing\.m\.input" must be a number .* got "0\.4"/,
    ],
    [
      '{ "m": { "input": 1, "output": 1, "cachd_input": 1 } }',
      /"pricing\.m\.cachd_input" is not a price/,
    ],
  ] as const
) {
  Deno.test(`pricing ${value} is an error naming the model and the price`, () => {
    const e = configError(() =>
      loadConfig({ config: "/x.jsonc" }, sources({}, { "/x.jsonc": `{ "pricing": ${value} }` }))
    );
    assert.match(e.message, /"\/x\.jsonc"/);
    assert.match(e.message, pattern);
  });
}

Deno.test("hooks from every config file run: each event's groups are concatenated", () => {
  const hook = (c: string) => `{ "hooks": [{ "type": "command", "command": "${c}" }] }`;
  const c = loadConfig(
    { config: "/x.jsonc" },
    sources({ XDG_CONFIG_HOME: "/xdg" }, {
      [XDG]: `{ "hooks": { "Stop": [${hook("a")}] } }`,
      "/x.jsonc": `{ "hooks": { "Stop": [${hook("b")}], "PreToolUse": [${hook("c")}] } }`,
    }),
  );
  assert.deepEqual(c.hooks.Stop?.map((g) => g.hooks[0]?.command), ["a", "b"]);
  assert.deepEqual(c.hooks.PreToolUse?.map((g) => g.hooks[0]?.command), ["c"]);
});

for (
  const [value, pattern] of [
    ["[]", /"hooks" must be an object of event names/],
    ['{ "PreToolUze": [] }', /"hooks\.PreToolUze" is not an event scv fires/],
    ['{ "Stop": {} }', /"hooks\.Stop" must be a list/],
    ['{ "Stop": [{ "hooks": [], "matchr": "x" }] }', /"hooks\.Stop\[0\]\.matchr" is not a key/],
    [
      '{ "Stop": [{ "matcher": "(", "hooks": [] }] }',
      /"hooks\.Stop\[0\]\.matcher" is not a valid regular expression/,
    ],
    [
      '{ "Stop": [{ "hooks": [{ "type": "prompt", "prompt": "x" }] }] }',
      /"hooks\.Stop\[0\]\.hooks\[0\]\.type" must be "command"/,
    ],
    [
      '{ "Stop": [{ "hooks": [{ "type": "command", "command": " " }] }] }',
      /\.command" must be a non-empty string/,
    ],
    [
      '{ "Stop": [{ "hooks": [{ "type": "command", "command": "x", "timeout": 0 }] }] }',
      /\.timeout" must be a positive number of seconds/,
    ],
  ] as const
) {
  Deno.test(`hooks ${value} is an error naming the place`, () => {
    const e = configError(() =>
      loadConfig({ config: "/x.jsonc" }, sources({}, { "/x.jsonc": `{ "hooks": ${value} }` }))
    );
    assert.match(e.message, /"\/x\.jsonc"/);
    assert.match(e.message, pattern);
  });
}

Deno.test("notify must be true or false", () => {
  const e = configError(() =>
    loadConfig({ config: "/x.jsonc" }, sources({}, { "/x.jsonc": '{ "notify": "no" }' }))
  );
  assert.match(e.message, /"notify" must be true or false/);
});

Deno.test("web_fetch_allow takes * and host patterns, and names a bad entry", () => {
  const ok = parseConfigText('{ "web_fetch_allow": ["*", "127.0.0.1:8080", "*.deno.com"] }', "f");
  assert.deepEqual(ok.web_fetch_allow, ["*", "127.0.0.1:8080", "*.deno.com"]);
  const e = configError(() =>
    parseConfigText('{ "web_fetch_allow": ["https://deno.com/"] }', "f.jsonc")
  );
  assert.match(e.message, /"web_fetch_allow"/);
  assert.match(e.message, /host patterns/);
});
