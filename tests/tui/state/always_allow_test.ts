import { assert, assertEquals } from "../../support/assert.ts";
import { applyKey } from "../../../tui/state/mod.ts";
import {
  applyAll,
  enter,
  key,
  notices,
  readyState,
  sent,
  TurnScript,
  typeText,
} from "../fixtures.ts";

function askTwice(second: { command: string }) {
  const s = readyState();
  const [start] = enter(s, "run it twice");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    t.proposed("c1", "bash", { command: "make test" }),
    t.approval("c1", "bash", "Run shell command: make test"),
  ]);
  const answer = sent(typeText(s, "a"))[0];
  assert(answer?.type === "approval.resolve" && answer.approved, JSON.stringify(answer));
  applyAll(s, [t.toolStarted("c1", "bash"), t.toolCompleted("c1", "bash", true, "ok")]);
  notices(s);
  const fx = applyAll(s, [
    t.proposed("c2", "bash", second),
    t.approval("c2", "bash", `Run shell command: ${second.command}`),
  ]);
  return { s, fx };
}

Deno.test("a: approves and answers the same bash command later without asking", () => {
  const { s, fx } = askTwice({ command: "make test" });
  const auto = sent(fx)[0];
  assert(auto?.type === "approval.resolve" && auto.approved && auto.approval_id === "a-c2");
  assertEquals(s.approval, undefined);
  assert(notices(s).includes("Allowed without asking (always allow bash `make test`)"));
});

Deno.test("an always-allow does not cover a different command", () => {
  const { s, fx } = askTwice({ command: "make test && rm -rf build" });
  assertEquals(sent(fx), []);
  assertEquals(s.approval?.approvalId, "a-c2");
});

Deno.test("an always-allow for a tool covers that path only", () => {
  const s = readyState();
  const [start] = enter(s, "write");
  const t = new TurnScript(start!.request_id!);
  applyAll(s, [
    t.started(),
    t.proposed("c1", "write_file", { path: "a.txt", content: "1" }),
    t.approval("c1", "write_file", "Write a.txt"),
  ]);
  applyKey(s, key("left")); // approve → always (the choices wrap around)
  assertEquals(s.approval?.choice, "always");
  assert(sent(applyKey(s, key("enter")))[0]?.type === "approval.resolve");
  const again = applyAll(s, [
    t.proposed("c2", "write_file", { path: "a.txt", content: "2" }),
    t.approval("c2", "write_file", "Write a.txt"),
  ]);
  assertEquals(sent(again).length, 1, "same tool, same path: answered");
  const other = applyAll(s, [
    t.proposed("c3", "write_file", { path: "b.txt", content: "2" }),
    t.approval("c3", "write_file", "Write b.txt"),
  ]);
  assertEquals(sent(other), [], "another path asks");
});

Deno.test("always-allow rules are forgotten with the session", () => {
  const { s } = askTwice({ command: "make test" });
  assertEquals(s.allowRules.length, 1);
  applyAll(s, [{
    type: "session.started",
    request_id: "new",
    session_id: "s2",
    cwd: "/work/project",
    model: "m",
    context_max_tokens: 1000,
    max_server_frame_bytes: 100000,
    max_transcript_bytes: 100000,
    max_transcript_items: 100,
    max_prompt_history_bytes: 1000,
    max_prompt_history_items: 10,
  }]);
  assertEquals(s.allowRules, []);
});

Deno.test("a session keeps at most MAX_ALLOW_RULES rules, dropping the oldest", async () => {
  const { addRule, MAX_ALLOW_RULES } = await import("../../../tui/state/always_allow.ts");
  const s = readyState();
  for (let i = 0; i <= MAX_ALLOW_RULES; i++) addRule(s, { tool: "bash", command: `echo ${i}` });
  assertEquals(s.allowRules.length, MAX_ALLOW_RULES);
  assertEquals(s.allowRules[0], { tool: "bash", command: "echo 1" });
});
