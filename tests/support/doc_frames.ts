/**
 * The Peon frames the documentation shows, read from the Markdown itself: `json` code blocks (one
 * value per block, or one per line), `ndjson` blocks (one per line), and in plain blocks the
 * lines of a sample session (`> {...}` written by the client, `< {...}` by the server). The
 * protocol tests check every one of them against the zod schemas, so the text and the code cannot
 * drift apart.
 *
 * @module
 */
import { CLIENT_MESSAGE_TYPES, SERVER_EVENT_TYPES } from "../../protocol/wire.ts";

/** One frame of a page. */
export interface DocFrame {
  /** The frame as written. */
  value: Record<string, unknown>;
  /** The page, relative to the repository (`docs/protocol.md`). */
  page: string;
  /** The line its code block starts on (1-based), for messages. */
  line: number;
  /** Who writes it, when the page says (`>`/`<` lines); else undefined. */
  from?: "client" | "server";
}

const ROOT = new URL("../../", import.meta.url);
const BLOCK = /^```([a-z]*)\n([\s\S]*?)^```/gm;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Every JSON object in a page's code blocks, as described in the module doc. */
export function framesOf(markdown: string, page: string): DocFrame[] {
  const out: DocFrame[] = [];
  for (const m of markdown.matchAll(BLOCK)) {
    const [, lang, body] = m as unknown as [string, string, string];
    const line = markdown.slice(0, m.index).split("\n").length;
    const add = (value: unknown, from?: "client" | "server") => {
      if (isObject(value)) out.push({ value, page, line, ...(from ? { from } : {}) });
    };
    const lines = body.split("\n").filter((l) => l.trim() !== "");
    if (lang === "json") {
      let whole: unknown;
      try {
        whole = JSON.parse(body);
      } catch {
        // Not one value: one per line, each of which must parse.
        for (const l of lines) add(JSON.parse(l));
        continue;
      }
      add(whole);
    } else if (lang === "ndjson") {
      for (const l of lines) add(JSON.parse(l));
    } else if (lang === "") {
      for (const l of lines) {
        const sample = /^([<>]) (\{.*\})\s*$/.exec(l);
        if (sample) add(JSON.parse(sample[2]!), sample[1] === ">" ? "client" : "server");
      }
    }
  }
  return out;
}

const WIRE_TYPES = new Set<string>([...CLIENT_MESSAGE_TYPES, ...SERVER_EVENT_TYPES]);

/** Whether a documented object is a Peon frame: a wire type, not a JSON-RPC (ACP, MCP) message. */
export function isPeonFrame(value: Record<string, unknown>): boolean {
  return typeof value.type === "string" && WIRE_TYPES.has(value.type) &&
    value.jsonrpc === undefined;
}

/** The pages whose frames are checked: every page of docs/ and the README. */
export function docPages(): string[] {
  const pages = [...Deno.readDirSync(new URL("docs/", ROOT))]
    .filter((e) => e.isFile && e.name.endsWith(".md")).map((e) => `docs/${e.name}`).sort();
  return [...pages, "README.md"];
}

/** Every Peon frame of the given pages (default: all of {@link docPages}). */
export function peonDocFrames(pages: string[] = docPages()): DocFrame[] {
  return pages.flatMap((page) =>
    framesOf(Deno.readTextFileSync(new URL(page, ROOT)), page).filter((f) => isPeonFrame(f.value))
  );
}
