/**
 * A workspace never defines hooks: scv reads hooks from the user's configuration only, so a
 * repository cannot make scv run code of its own. A workspace that carries Claude Code's
 * project settings with `hooks` (`.claude/settings.json`, `.claude/settings.local.json`) gets a
 * notice in `session.started` saying they do not run, so a user moving from Claude Code knows
 * to copy the ones they trust into their own configuration.
 *
 * @module
 */

/** Claude Code's project settings files, relative to the workspace. */
export const PROJECT_SETTINGS = [".claude/settings.json", ".claude/settings.local.json"];

/** The largest settings file looked into. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/**
 * The notice for a workspace whose Claude Code settings define hooks, or undefined when none
 * does (or they cannot be read: then there is nothing to say).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workspaceHooksNotice } from "./workspace_hooks.ts";
 * assert.equal(await workspaceHooksNotice("/nonexistent-dir"), undefined);
 * ```
 */
export async function workspaceHooksNotice(cwd: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const rel of PROJECT_SETTINGS) {
    try {
      const path = `${cwd}/${rel}`;
      const info = await Deno.stat(path);
      if (!info.isFile || info.size > MAX_SETTINGS_BYTES) continue;
      const v = JSON.parse(await Deno.readTextFile(path));
      if (typeof v === "object" && v !== null && "hooks" in v) found.push(rel);
    } catch {
      // Missing, unreadable or not JSON: it defines nothing scv would skip.
    }
  }
  if (found.length === 0) return undefined;
  return `The workspace's ${found.join(" and ")} define hooks; scv does not run hooks a ` +
    `workspace defines. Copy the ones you trust into "hooks" in your own scv configuration ` +
    `(see docs/hooks.md).`;
}
