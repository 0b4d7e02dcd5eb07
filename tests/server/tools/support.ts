/**
 * What the tool tests share: a call context and temporary workspaces.
 *
 * @module
 */
import type { ToolContext, ToolLimits } from "../../../server/tools/tool.ts";

/** A tool call's context in `cwd`: 64 KiB of output, 10 s, no secrets, unless overridden. */
export function toolContext(
  cwd: string,
  options: { limits?: Partial<ToolLimits>; signal?: AbortSignal; secretEnv?: string[] } = {},
): ToolContext {
  return {
    cwd,
    signal: options.signal ?? new AbortController().signal,
    limits: { maxOutputBytes: 65536, timeoutMs: 10_000, ...options.limits },
    secretEnv: options.secretEnv ?? [],
  };
}

/** Runs `fn` with a fresh physical temporary directory, removed afterwards. */
export async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv_tool_test_" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` with a workspace `ws` and a directory `outside` next to it, both physical. */
export async function withDirs(fn: (ws: string, outside: string) => Promise<void>): Promise<void> {
  await withTempDir(async (top) => {
    await Deno.mkdir(`${top}/ws`);
    await Deno.mkdir(`${top}/outside`);
    await fn(`${top}/ws`, `${top}/outside`);
  });
}
