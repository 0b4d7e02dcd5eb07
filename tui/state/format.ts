/**
 * How the TUI words numbers and tool calls: byte and token counts, the context share, and the
 * one-line summary of a call.
 *
 * @module
 */

const encoder = new TextEncoder();

/** A one-line summary of a tool call from its arguments, as CONTRACT.md's table words it. */
export function toolSummary(name: string, args: unknown): string {
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const str = (k: string) => (typeof a[k] === "string" ? a[k] as string : "");
  switch (name) {
    case "bash":
      return str("command");
    case "read_file":
      return str("path");
    case "write_file":
      return `${str("path")} (${encoder.encode(str("content")).length} bytes)`;
    case "edit_file":
      return str("path");
    case "glob":
      return str("pattern");
    case "grep":
      return str("pattern") + (str("path") ? ` in ${str("path")}` : "");
    default:
      return typeof args === "string" ? args : JSON.stringify(args ?? {});
  }
}

/**
 * The share of the context window in use, in whole percent, at most 100: the token figure is
 * an estimate and may exceed the window.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contextPercent } from "./format.ts";
 * assert(contextPercent(64000, 128000) === 50 && contextPercent(200000, 128000) === 100);
 * ```
 */
export function contextPercent(tokens: number, max: number): number {
  if (max <= 0) return 0;
  return Math.min(100, Math.round((tokens / max) * 100));
}

/** Formats a byte count: `900 bytes`, `256 KiB`, `1.5 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const [v, unit] = n < 1024 * 1024 ? [n / 1024, "KiB"] : [n / (1024 * 1024), "MiB"];
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`;
}

/** Formats a token count: `950`, `12.3k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * Formats a cost in US dollars: cents from a dollar up, four decimals below it (a session of a
 * cheap model costs fractions of a cent), and `<$0.0001` for what would round to nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatUsd } from "./format.ts";
 * assert.deepEqual([formatUsd(12.345), formatUsd(0.01234), formatUsd(0.00001), formatUsd(0)],
 *   ["$12.35", "$0.0123", "<$0.0001", "$0.00"]);
 * ```
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return "$0.00";
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd < 0.00005) return "<$0.0001";
  return `$${usd.toFixed(4)}`;
}

/** An MCP server's state as `session.started` gives it. */
interface McpState {
  name: string;
  status: string;
  tools: number;
  error?: string | undefined;
}

/** One server's state in words: `github ready (12 tools)`, `db failed: <why>`. */
export function mcpServerText(m: McpState): string {
  if (m.status === "ready") return `${m.name} ready (${m.tools} tool${m.tools === 1 ? "" : "s"})`;
  if (m.status === "failed") return `${m.name} failed${m.error ? `: ${m.error}` : ""}`;
  return `${m.name} ${m.status}`;
}

/**
 * The one startup line about the MCP servers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcpLine } from "./format.ts";
 * assert.equal(
 *   mcpLine([{ name: "fs", status: "ready", tools: 3 }, { name: "db", status: "starting", tools: 0 }]),
 *   "MCP: fs ready (3 tools) · db starting",
 * );
 * ```
 */
export function mcpLine(servers: readonly McpState[]): string {
  return `MCP: ${servers.map(mcpServerText).join(" · ")}`;
}

/** The sandbox in the status line's words: `sandbox workspace-write`, `no sandbox`. */
export function sandboxLabel(mode: string): string {
  return mode === "off" ? "no sandbox" : `sandbox ${mode}`;
}

/**
 * Whether the context use is not known: a resumed session with earlier items on screen that
 * no turn has measured since (a new or cleared conversation starts at 0).
 */
export function contextUnknown(state: {
  contextTokens: number | undefined;
  session: { resumed: boolean } | undefined;
  transcript: readonly { kind: string }[];
}): boolean {
  return state.contextTokens === undefined && state.session?.resumed === true &&
    state.transcript.some((i) => i.kind !== "notice");
}
