/**
 * The system prompt: who the agent is, where it works, and the project's own instructions
 * from `AGENTS.md` files (the workspace's and its parents' up to the git root), bounded.
 *
 * @module
 */
import { headOf } from "../tools/output.ts";
import { utf8Length } from "../utf8.ts";

/** Most bytes of AGENTS.md text added to the system prompt, all files together. */
export const MAX_AGENTS_MD_BYTES = 32 * 1024;

const BASE = `You are scv, a coding agent working in a terminal on the user's machine.
Use the tools to inspect and change the workspace; paths are relative to the workspace.
Prefer small, verifiable steps: read before you edit, run tests after you change code.
Each tool call may need the user's approval; a denied call was refused by the user.
Be concise. When you are done, say what you changed and how you checked it.`;

const BASE_WITHOUT_TOOLS = `You are scv, a coding agent working in a terminal on the user's machine.
No tools are available with this model: the provider refused them. Answer from what the user
shows you; when something must be run or changed, say exactly what and where.
Be concise.`;

/**
 * The system prompt for a model whose server refused tools: the same workspace and project
 * instructions, without asking the model to call tools it is not given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildSystemPrompt, withoutToolGuidance } from "./prompt.ts";
 * const p = withoutToolGuidance(await buildSystemPrompt("/"));
 * assert(!p.includes("Use the tools"));
 * assert(p.includes("Workspace: /"));
 * ```
 */
export function withoutToolGuidance(prompt: string): string {
  return prompt.startsWith(BASE) ? BASE_WITHOUT_TOOLS + prompt.slice(BASE.length) : prompt;
}

/** What the model is told while plan mode is on (`approval_policy: "plan"`). */
export const PLAN_MODE_PROMPT = `Plan mode is on: the user wants you to look and propose before
anything changes. Only read-only tools run (read_file, glob, grep, update_plan, and others marked
read-only); any write, edit or shell command is refused. Investigate, keep your plan with
update_plan, and end with the plan and the changes you propose; the user leaves plan mode to carry
them out.`;

/**
 * The system prompt for a turn under `policy`: plan mode adds what it allows, read at every
 * provider call so that a mode switched mid-turn (ACP) applies to the next one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PLAN_MODE_PROMPT, promptForPolicy } from "./prompt.ts";
 * assert(promptForPolicy("base", "plan").endsWith(PLAN_MODE_PROMPT));
 * assert.equal(promptForPolicy("base", "on-risk"), "base");
 * ```
 */
export function promptForPolicy(prompt: string, policy: string): string {
  return policy === "plan" ? `${prompt}\n\n${PLAN_MODE_PROMPT}` : prompt;
}

async function readIfFile(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The AGENTS.md files that apply to `cwd`, outermost first: from the git root (or `cwd` alone
 * when it is not in a repository) down to `cwd`.
 */
export async function findAgentsFiles(cwd: string): Promise<string[]> {
  const dirs: string[] = [];
  let dir = cwd;
  let root: string | undefined;
  while (true) {
    dirs.push(dir);
    if (await exists(`${dir}/.git`)) {
      root = dir;
      break;
    }
    const parent = dir.replace(/\/[^/]*$/, "") || "/";
    if (parent === dir) break;
    dir = parent;
  }
  const chain = root === undefined ? [cwd] : dirs;
  const found: string[] = [];
  for (const d of chain.reverse()) {
    const p = d === "/" ? "/AGENTS.md" : `${d}/AGENTS.md`;
    if (await exists(p)) found.push(p);
  }
  return found;
}

/**
 * Builds the system prompt for a workspace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildSystemPrompt } from "./prompt.ts";
 * const p = await buildSystemPrompt("/");
 * assert(p.includes("Workspace: /"));
 * ```
 */
export async function buildSystemPrompt(cwd: string): Promise<string> {
  let prompt = `${BASE}\n\nWorkspace: ${cwd}`;
  let budget = MAX_AGENTS_MD_BYTES;
  for (const path of await findAgentsFiles(cwd)) {
    if (budget <= 0) break;
    const text = await readIfFile(path);
    if (text === undefined) continue;
    const size = utf8Length(text);
    const body = size > budget ? headOf(text, budget) + "\n[... AGENTS.md truncated ...]" : text;
    budget -= size;
    prompt += `\n\nProject instructions from ${path}:\n${body}`;
  }
  return prompt;
}
