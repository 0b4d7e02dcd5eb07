/**
 * What scv learnt about a provider that outlives the process: that a server refused `tools` for
 * a model, and the context window it reported. Kept in one small file in scv's state directory
 * (`$XDG_STATE_HOME/scv/provider_memory.json`), per base URL (without credentials or query) and
 * model; each entry expires after a day, each table keeps at most {@link MAX_ENTRIES}, and a
 * file that is torn, too large or of another shape is treated as empty. Writing is atomic (a
 * temporary file renamed over the old one) and best effort: a state directory scv cannot write
 * costs a repeated request, never a failed turn.
 *
 * @module
 */
import { stateDir } from "../state_dir.ts";

/**
 * Where the provider memory of an environment lives, or undefined without a state directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerMemoryPath } from "./memory.ts";
 * assert.equal(providerMemoryPath((n) => n === "XDG_STATE_HOME" ? "/s" : undefined), "/s/scv/provider_memory.json");
 * ```
 */
export function providerMemoryPath(env: (name: string) => string | undefined): string | undefined {
  const dir = stateDir(env);
  return dir === undefined ? undefined : `${dir}/provider_memory.json`;
}

/** Entries kept per table at most; the oldest go first. */
export const MAX_ENTRIES = 64;
/** How long an entry holds. */
export const MEMORY_TTL_MS = 24 * 60 * 60 * 1000;
/** A memory file larger than this is not read. */
export const MAX_MEMORY_FILE_BYTES = 64 * 1024;

/** One table's entry. */
interface Entry {
  /** When it was learnt (ms since the epoch). */
  at: number;
  /** For `tools_refused`: the server's words, bounded. */
  reason?: string;
  /** For `windows`: the window in tokens, and which answer said it. */
  tokens?: number;
  source?: string;
  /** For `windows`: the server was asked and named none. */
  none?: true;
}

interface MemoryFile {
  version: 1;
  tools_refused: Record<string, Entry>;
  windows: Record<string, Entry>;
}

/**
 * The key of a base URL and model: the URL without credentials, query or fragment (none of
 * which may reach a file), then the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryKey } from "./memory.ts";
 * assert.equal(memoryKey("http://u:pw@127.0.0.1:8080/v1/?key=x", "m"), "http://127.0.0.1:8080/v1 m");
 * ```
 */
export function memoryKey(baseUrl: string, model: string): string {
  let base = baseUrl;
  try {
    const u = new URL(baseUrl);
    base = `${u.protocol}//${u.host}${u.pathname}`.replace(/\/+$/, "");
  } catch {
    base = baseUrl.replace(/[?#].*$/, "");
  }
  return `${base} ${model.slice(0, 256)}`;
}

function emptyFile(): MemoryFile {
  return { version: 1, tools_refused: {}, windows: {} };
}

function table(v: unknown, now: number): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) return out;
  for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
    if (typeof e !== "object" || e === null) continue;
    const entry = e as Record<string, unknown>;
    const at = entry.at;
    if (typeof at !== "number" || !(now - at < MEMORY_TTL_MS) || at > now + 60_000) continue;
    const kept: Entry = { at };
    if (typeof entry.reason === "string") kept.reason = entry.reason.slice(0, 500);
    if (
      typeof entry.tokens === "number" && Number.isSafeInteger(entry.tokens) && entry.tokens > 0
    ) {
      kept.tokens = entry.tokens;
    }
    if (typeof entry.source === "string") kept.source = entry.source.slice(0, 200);
    if (entry.none === true && kept.tokens === undefined) kept.none = true;
    out[k.slice(0, 600)] = kept;
  }
  return out;
}

/** Keeps the newest {@link MAX_ENTRIES} of a table. */
function bounded(t: Record<string, Entry>): Record<string, Entry> {
  const entries = Object.entries(t).sort((a, b) => b[1].at - a[1].at).slice(0, MAX_ENTRIES);
  return Object.fromEntries(entries);
}

/**
 * The provider memory of one state directory. Reads happen at construction (one small file);
 * every change is written through at once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProviderMemory } from "./memory.ts";
 * const dir = await Deno.makeTempDir();
 * const m = new ProviderMemory(`${dir}/provider_memory.json`);
 * await m.rememberToolsRefused("http://127.0.0.1:8080/v1", "local", "tools param requires --jinja flag");
 * const again = new ProviderMemory(`${dir}/provider_memory.json`);
 * assert.equal(again.toolsRefused("http://127.0.0.1:8080/v1", "local"), "tools param requires --jinja flag");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class ProviderMemory {
  #path: string | undefined;
  #now: () => number;
  #file: MemoryFile;

  /**
   * Opens the memory at `path` (undefined: remember nothing beyond the process). `now` is the
   * clock, for tests of expiry.
   */
  constructor(path: string | undefined, now: () => number = Date.now) {
    this.#path = path;
    this.#now = now;
    this.#file = this.#read();
  }

  #read(): MemoryFile {
    if (this.#path === undefined) return emptyFile();
    try {
      const info = Deno.statSync(this.#path);
      if (!info.isFile || info.size > MAX_MEMORY_FILE_BYTES) return emptyFile();
      const json = JSON.parse(Deno.readTextFileSync(this.#path));
      if (json?.version !== 1) return emptyFile();
      const now = this.#now();
      return {
        version: 1,
        tools_refused: table(json.tools_refused, now),
        windows: table(json.windows, now),
      };
    } catch {
      return emptyFile(); // none yet, torn or unreadable: nothing learnt
    }
  }

  async #write(): Promise<void> {
    if (this.#path === undefined) return;
    const file: MemoryFile = {
      version: 1,
      tools_refused: bounded(this.#file.tools_refused),
      windows: bounded(this.#file.windows),
    };
    this.#file = file;
    const tmp = `${this.#path}.${crypto.randomUUID()}.tmp`;
    try {
      const dir = this.#path.replace(/\/[^/]*$/, "");
      if (dir) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      await Deno.writeTextFile(tmp, JSON.stringify(file), { mode: 0o600 });
      await Deno.rename(tmp, this.#path);
    } catch {
      await Deno.remove(tmp).catch(() => {});
    }
  }

  #live(t: Record<string, Entry>, key: string): Entry | undefined {
    const e = t[key];
    return e && this.#now() - e.at < MEMORY_TTL_MS ? e : undefined;
  }

  /**
   * The server's words when it refused tools for this model within the last day, or within
   * `withinMs` when given (an older refusal is worth asking again).
   */
  toolsRefused(baseUrl: string, model: string, withinMs = MEMORY_TTL_MS): string | undefined {
    const e = this.#live(this.#file.tools_refused, memoryKey(baseUrl, model));
    return e && this.#now() - e.at < withinMs ? e.reason : undefined;
  }

  /** Whether a refusal of tools is remembered for this model at all (within the day). */
  hasToolsRefusal(baseUrl: string, model: string): boolean {
    return this.#live(this.#file.tools_refused, memoryKey(baseUrl, model)) !== undefined;
  }

  /** Remembers that the server refused tools for this model. */
  rememberToolsRefused(baseUrl: string, model: string, reason: string): Promise<void> {
    this.#file.tools_refused[memoryKey(baseUrl, model)] = {
      at: this.#now(),
      reason: reason.slice(0, 500),
    };
    return this.#write();
  }

  /** Forgets a refusal (a request with tools then succeeded). */
  forgetToolsRefused(baseUrl: string, model: string): Promise<void> {
    const key = memoryKey(baseUrl, model);
    if (!(key in this.#file.tools_refused)) return Promise.resolve();
    delete this.#file.tools_refused[key];
    return this.#write();
  }

  /** The window the server reported for this model within the last day. */
  window(baseUrl: string, model: string): { tokens: number; source: string } | undefined {
    const e = this.#live(this.#file.windows, memoryKey(baseUrl, model));
    return e?.tokens ? { tokens: e.tokens, source: e.source ?? "remembered" } : undefined;
  }

  /**
   * Whether the server, asked within the last day, listed this model and named no window
   * ({@link rememberNoWindow}).
   */
  namedNoWindow(baseUrl: string, model: string): boolean {
    return this.#live(this.#file.windows, memoryKey(baseUrl, model))?.none === true;
  }

  /** Remembers that the server listed this model and named no window. */
  rememberNoWindow(baseUrl: string, model: string): Promise<void> {
    return this.#rememberAnswer(baseUrl, model, { none: true }, (old) => old.none === true);
  }

  /** Remembers the window the server reported. */
  rememberWindow(baseUrl: string, model: string, tokens: number, source: string): Promise<void> {
    const entry = { tokens, source: source.slice(0, 200) };
    return this.#rememberAnswer(baseUrl, model, entry, (old) => old.tokens === tokens);
  }

  /** Writes a window answer, unless `same` says the entry holds it and is under half a day old. */
  #rememberAnswer(
    baseUrl: string,
    model: string,
    answer: Omit<Entry, "at">,
    same: (old: Entry) => boolean,
  ): Promise<void> {
    const key = memoryKey(baseUrl, model);
    const old = this.#file.windows[key];
    if (old && same(old) && this.#now() - old.at < MEMORY_TTL_MS / 2) {
      return Promise.resolve(); // known and fresh: no write per session
    }
    this.#file.windows[key] = { at: this.#now(), ...answer };
    return this.#write();
  }
}
