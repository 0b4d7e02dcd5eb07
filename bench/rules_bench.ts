/**
 * Deciding a bash call against the rules: the shell parse of a typical command line and the
 * decision over the built-in rules plus a user file's worth of prefixes. The parser's one-time
 * load (the WebAssembly grammar) happens before the first iteration; `scv rules check` and the
 * first bash call of a process pay it once.
 *
 * Run: `deno bench --no-prompt -A bench/rules_bench.ts`
 *
 * @module
 */
import { BUILTIN_RULES } from "../server/core/rules/builtin.ts";
import { decide } from "../server/core/rules/decide.ts";
import type { Rule } from "../server/core/rules/rule.ts";
import { parseShell } from "../server/core/rules/shell_commands.ts";

const LINE = "git status && (cd docs; ls -la | wc -l) || echo $(date) > out.txt 2>&1";
const USER: Rule[] = Array.from({ length: 100 }, (_, i) => ({
  tool: "bash",
  prefix: [`tool${i}`, "run"],
  decision: i % 3 === 0 ? "ask" : "allow",
  source: "user",
  index: i + 1,
}));
const RULES = [...USER, ...BUILTIN_RULES];
const parsed = await parseShell(LINE);

Deno.bench("parse a five-command bash line", async () => {
  await parseShell(LINE);
});

Deno.bench("decide a parsed line against 100 user rules and the built-ins", () => {
  decide(RULES, { tool: "bash", args: { command: LINE }, cwd: "/w", shell: parsed });
});
