/**
 * The provider memory: per base URL and model, expiring after a day, bounded, tolerant of a
 * torn or foreign file, written atomically with mode 0600, never holding credentials.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  MAX_ENTRIES,
  MAX_MEMORY_FILE_BYTES,
  MEMORY_TTL_MS,
  ProviderMemory,
} from "../../../server/provider/memory.ts";

async function withDir(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(`${dir}/state/provider_memory.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a refusal is remembered per base URL and model, and expires after a day", () =>
  withDir(async (path) => {
    let now = 1_000_000;
    const m = new ProviderMemory(path, () => now);
    await m.rememberToolsRefused("http://127.0.0.1:8080/v1", "a", "no tools");
    assertEquals(
      new ProviderMemory(path, () => now).toolsRefused("http://127.0.0.1:8080/v1", "a"),
      "no tools",
    );
    assertEquals(m.toolsRefused("http://127.0.0.1:8080/v1", "b"), undefined);
    assertEquals(m.toolsRefused("http://127.0.0.1:9090/v1", "a"), undefined);
    now += MEMORY_TTL_MS - 1;
    assertEquals(
      new ProviderMemory(path, () => now).toolsRefused("http://127.0.0.1:8080/v1", "a"),
      "no tools",
    );
    now += 2;
    assertEquals(
      new ProviderMemory(path, () => now).toolsRefused("http://127.0.0.1:8080/v1", "a"),
      undefined,
    );
    assertEquals(
      m.toolsRefused("http://127.0.0.1:8080/v1", "a"),
      undefined,
      "the live copy expires too",
    );
  }));

Deno.test("a server that named no window is remembered so for a day, and a window it names replaces that", () =>
  withDir(async (path) => {
    let now = 1_000_000;
    const url = "http://127.0.0.1:8080/v1";
    await new ProviderMemory(path, () => now).rememberNoWindow(url, "a");
    const again = new ProviderMemory(path, () => now);
    assert(again.namedNoWindow(url, "a"));
    assert(!again.namedNoWindow(url, "b"));
    assertEquals(again.window(url, "a"), undefined);
    now += MEMORY_TTL_MS;
    assert(!new ProviderMemory(path, () => now).namedNoWindow(url, "a"), "expired");
    const m = new ProviderMemory(path, () => now);
    await m.rememberNoWindow(url, "a");
    await m.rememberWindow(url, "a", 4096, "/props n_ctx");
    const known = new ProviderMemory(path, () => now);
    assert(!known.namedNoWindow(url, "a"));
    assertEquals(known.window(url, "a"), { tokens: 4096, source: "/props n_ctx" });
    // A hand-made entry with both says the window: `none` holds only without one.
    const file = JSON.parse(await Deno.readTextFile(path));
    file.windows[Object.keys(file.windows)[0]!].none = true;
    await Deno.writeTextFile(path, JSON.stringify(file));
    assert(!new ProviderMemory(path, () => now).namedNoWindow(url, "a"));
  }));

Deno.test("each table keeps the newest entries, at most MAX_ENTRIES", () =>
  withDir(async (path) => {
    let now = 5_000;
    const m = new ProviderMemory(path, () => now);
    for (let i = 0; i <= MAX_ENTRIES; i++) {
      now++;
      await m.rememberWindow("http://127.0.0.1:1/v1", `model-${i}`, 1000 + i, "test");
    }
    const file = JSON.parse(await Deno.readTextFile(path));
    assertEquals(Object.keys(file.windows).length, MAX_ENTRIES);
    const again = new ProviderMemory(path, () => now);
    assertEquals(again.window("http://127.0.0.1:1/v1", "model-0"), undefined, "the oldest went");
    assertEquals(
      again.window("http://127.0.0.1:1/v1", `model-${MAX_ENTRIES}`)?.tokens,
      1000 + MAX_ENTRIES,
    );
  }));

Deno.test("a torn, foreign or oversized memory file is read as empty and then replaced whole", () =>
  withDir(async (path) => {
    await Deno.mkdir(path.replace(/\/[^/]*$/, ""), { recursive: true });
    for (
      const bad of [
        '{"version":1,"tools_re',
        '{"version":2}',
        "[]",
        "x".repeat(MAX_MEMORY_FILE_BYTES + 1),
      ]
    ) {
      await Deno.writeTextFile(path, bad);
      const m = new ProviderMemory(path);
      assertEquals(m.toolsRefused("http://127.0.0.1:1/v1", "m"), undefined);
      await m.rememberToolsRefused("http://127.0.0.1:1/v1", "m", "r");
      assertEquals(JSON.parse(await Deno.readTextFile(path)).version, 1);
    }
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    const left = [...Deno.readDirSync(path.replace(/\/[^/]*$/, ""))].map((e) => e.name);
    assertEquals(left, ["provider_memory.json"], "no temporary file left behind");
  }));

Deno.test("the memory keeps no credentials or query of the base URL, and bounds what it stores", () =>
  withDir(async (path) => {
    const m = new ProviderMemory(path);
    await m.rememberToolsRefused(
      "http://alice:s3cr3t-pw@127.0.0.1:8080/v1?api_key=k3y-v4lue",
      "m",
      "r".repeat(5000),
    );
    const text = await Deno.readTextFile(path);
    assert(
      !text.includes("s3cr3t-pw") && !text.includes("alice") && !text.includes("k3y-v4lue"),
      text,
    );
    assert(text.length < 1000, String(text.length));
    assertEquals(
      new ProviderMemory(path).toolsRefused("http://127.0.0.1:8080/v1", "m")?.length,
      500,
    );
  }));

Deno.test("without a state directory nothing is written and nothing is remembered across instances", async () => {
  const m = new ProviderMemory(undefined);
  await m.rememberToolsRefused("http://127.0.0.1:1/v1", "m", "r");
  assertEquals(new ProviderMemory(undefined).toolsRefused("http://127.0.0.1:1/v1", "m"), undefined);
});
