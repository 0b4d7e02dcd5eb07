/**
 * Prompt history: a bounded list of sent prompts that Up and Down walk through, persisted as
 * JSON lines under `$XDG_STATE_HOME/scv/` (else `~/.local/state/scv/`). The bounds are the
 * `max_prompt_history_items` and `max_prompt_history_bytes` of `session.started`; the oldest
 * entries go first.
 *
 * @module
 */

/** Limits of a {@link PromptHistory}. */
export interface HistoryLimits {
  maxItems: number;
  maxBytes: number;
}

const encoder = new TextEncoder();

/**
 * A bounded prompt history with a walking cursor. Walking keeps the draft the user was typing,
 * so Down past the newest entry gives it back; and, as in readline, an entry edited while
 * walking keeps its edit when Up/Down leave it and come back, until a prompt is sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PromptHistory } from "./history.ts";
 * const h = new PromptHistory({ maxItems: 2, maxBytes: 100 });
 * h.add("a"); h.add("b"); h.add("c");
 * assert(h.entries.join() === "b,c");
 * assert(h.previous("draft") === "c" && h.previous("c!") === "b");
 * assert(h.next("b") === "c!" && h.next("c!") === "draft");
 * ```
 */
export class PromptHistory {
  #entries: string[] = [];
  #bytes = 0;
  #limits: HistoryLimits;
  #index = -1; // -1: not walking; else index into entries
  #draft = "";
  /** Entries edited while walking, by index: the text the composer held when it left them. */
  #edits = new Map<number, string>();

  /** Creates an empty history with the given bounds. */
  constructor(limits: HistoryLimits, entries: readonly string[] = []) {
    this.#limits = limits;
    for (const e of entries) this.#push(e);
    this.#enforce();
  }

  /** The entries, oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /** The encoded size of the entries as stored (one JSON line each). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Changes the bounds (from `session.started`), dropping the oldest entries to fit. */
  setLimits(limits: HistoryLimits): void {
    this.#limits = limits;
    this.#enforce();
  }

  /** Adds a sent prompt (skipping an exact repeat of the newest) and stops walking. */
  add(prompt: string): void {
    this.reset();
    if (prompt.trim() === "") return;
    if (this.#entries[this.#entries.length - 1] === prompt) return;
    this.#push(prompt);
    this.#enforce();
  }

  /** Whether Up/Down is walking the history. */
  get walking(): boolean {
    return this.#index !== -1;
  }

  /**
   * Steps to the older entry. `current` is the composer's text: the draft when walking starts,
   * else the (possibly edited) entry being left, kept for when the walk comes back to it.
   */
  previous(current: string): string | undefined {
    if (this.#entries.length === 0) return undefined;
    if (this.#index === -1) {
      this.#draft = current;
      this.#index = this.#entries.length - 1;
    } else if (this.#index > 0) {
      this.#leave(current);
      this.#index--;
    } else {
      return undefined;
    }
    return this.#shown(this.#index);
  }

  /**
   * Steps to the newer entry, or back to the draft past the newest. `current` is the
   * composer's text, kept as the entry's edit as in {@link PromptHistory.previous}.
   */
  next(current: string): string | undefined {
    if (this.#index === -1) return undefined;
    this.#leave(current);
    if (this.#index < this.#entries.length - 1) {
      this.#index++;
      return this.#shown(this.#index);
    }
    this.#index = -1;
    return this.#draft;
  }

  /** Stops walking and forgets the edits made while walking (the composer keeps its text). */
  reset(): void {
    this.#index = -1;
    this.#edits.clear();
  }

  /** Records the composer text of the entry being left, if it differs from the entry. */
  #leave(current: string): void {
    if (current === this.#entries[this.#index]) this.#edits.delete(this.#index);
    else this.#edits.set(this.#index, current);
  }

  #shown(index: number): string {
    return this.#edits.get(index) ?? this.#entries[index]!;
  }

  /** The history as file content: one JSON string per line. */
  serialize(): string {
    return this.#entries.map((e) => JSON.stringify(e) + "\n").join("");
  }

  #push(e: string): void {
    this.#entries.push(e);
    this.#bytes += entryBytes(e);
  }

  #enforce(): void {
    let dropped = 0;
    while (
      this.#entries.length > 0 &&
      (this.#entries.length > this.#limits.maxItems || this.#bytes > this.#limits.maxBytes)
    ) {
      this.#bytes -= entryBytes(this.#entries.shift()!);
      dropped++;
    }
    // The walk's indexes no longer name the same entries.
    if (dropped > 0) this.reset();
  }
}

function entryBytes(e: string): number {
  return encoder.encode(JSON.stringify(e)).length + 1;
}

/**
 * Parses history file content, skipping lines that are not JSON strings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHistory } from "./history.ts";
 * assert(parseHistory('"a"\nnot json\n"b\\nc"\n').join("|") === "a|b\nc");
 * ```
 */
export function parseHistory(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      if (typeof v === "string") out.push(v);
    } catch {
      // A damaged line is dropped; the rest of the history is still useful.
    }
  }
  return out;
}

/** The directory for scv's state: `$XDG_STATE_HOME/scv` or `~/.local/state/scv`. */
export function stateDir(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_STATE_HOME");
  // The XDG spec: a relative value is invalid and is ignored.
  if (xdg?.startsWith("/")) return `${xdg}/scv`;
  const home = env("HOME");
  return home ? `${home}/.local/state/scv` : undefined;
}

/** Loads the history file, or an empty list when it is missing or unreadable. */
export async function loadHistoryFile(path: string): Promise<string[]> {
  try {
    return parseHistory(await Deno.readTextFile(path));
  } catch {
    return [];
  }
}

/** Writes the history file atomically (a temporary file renamed over it). */
export async function saveHistoryFile(path: string, history: PromptHistory): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${path}.${Deno.pid}.tmp`;
  await Deno.writeTextFile(tmp, history.serialize(), { mode: 0o600 });
  await Deno.rename(tmp, path);
}
