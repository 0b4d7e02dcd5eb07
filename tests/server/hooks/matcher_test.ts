/** Hook matchers as Claude Code documents them. */
import { assert } from "../../support/assert.ts";
import { matches } from "../../../server/hooks/matcher.ts";

Deno.test("an omitted, empty or * matcher matches every tool", () => {
  for (const m of [undefined, "", "*"]) assert(matches(m, "Bash") && matches(m, "mcp__a__b"));
});

Deno.test("a plain matcher is an exact, case-sensitive name or a | list of names", () => {
  assert(matches("Bash", "Bash"));
  assert(!matches("Bash", "bash") && !matches("Bash", "BashOutput"));
  assert(matches("Edit|Write", "Edit") && matches("Edit|Write", "Write"));
  assert(!matches("Edit|Write", "Read"));
});

Deno.test("any other matcher is a regular expression tested against the name", () => {
  assert(matches("mcp__github__.*", "mcp__github__create_issue"));
  assert(!matches("mcp__github__.*", "mcp__fs__read"));
  assert(matches("^Notebook", "NotebookEdit") && !matches("^Notebook", "Bash"));
  assert(matches("startup|resume", "resume"));
});
