import { assert, assertEquals } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { applyEvent, applyKey, createState } from "../../../tui/state/mod.ts";
import { enter, key, notices, readyState, sessionStarted, typeText } from "../fixtures.ts";

type Started = Extract<ServerEvent, { type: "session.started" }>;

function statusOf(extra: Partial<Started>): string {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
  });
  applyEvent(s, { ...(sessionStarted() as Started), ...extra });
  notices(s);
  enter(s, "/status");
  return notices(s).at(-1)!;
}

Deno.test("/status says what the workspace-write sandbox lets bash do", () => {
  const text = statusOf({ sandbox: { mode: "workspace-write", network: false } });
  assert(text.includes("Sandbox: workspace-write, network blocked"), text);
  assert(text.includes("bash writes only in the workspace"), text);
  assert(text.includes("/tmp is private"), text);
});

Deno.test("/status says the read-only sandbox lets bash write nowhere but its private /tmp", () => {
  const text = statusOf({ sandbox: { mode: "read-only", network: true } });
  assert(text.includes("Sandbox: read-only, network allowed"), text);
  assert(text.includes("bash writes nowhere but a private /tmp"), text);
});

Deno.test("/status gives the transcript's sizes and limits in readable units, singular or plural", () => {
  const text = statusOf({ max_transcript_bytes: 8 * 1024 * 1024 });
  assert(/Transcript: 0 items, 0 bytes in memory \(limits 10000 items, 8 MiB\)/.test(text), text);
  assert(text.includes("Prompt history: 1 entry"), text);
});

Deno.test("Tab after a unique command prefix completes the command and a space", () => {
  const s = readyState();
  typeText(s, "/sta");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "/status ");
});

Deno.test("Tab after a shared command prefix completes what they share and lists them", () => {
  const s = readyState();
  typeText(s, "/c");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "/c");
  assertEquals(s.hint, "/clear  /compact");
});

Deno.test("Tab completes a custom command's name too", () => {
  const s = readyState();
  s.customCommands = [{ name: "review", description: "r", body: "Review $ARGUMENTS", source: "x" }];
  typeText(s, "/rev");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "/review ");
});

Deno.test("Tab after a /word no command starts with says so and leaves the text", () => {
  const s = readyState();
  typeText(s, "/zz");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "/zz");
  assert(s.hint?.startsWith("No command starts with /zz"), s.hint);
});

Deno.test("the listed commands of a Tab go at the next key typed", () => {
  const s = readyState();
  typeText(s, "/c");
  applyKey(s, key("tab"));
  typeText(s, "lear");
  assertEquals(s.hint, undefined);
});

Deno.test("/status lists the configured hooks by event and matcher", () => {
  const text = statusOf({
    hooks: [
      { event: "PreToolUse", matcher: "Bash", commands: 1 },
      { event: "Stop", commands: 2 },
    ],
  });
  assert(text.includes("Hooks: PreToolUse Bash (1 command) · Stop (2 commands)"), text);
});

Deno.test("/status gives a resumed session's cost, and says when it is not known", () => {
  assert(statusOf({ session_cost_usd: 1.234 }).includes("Cost: $1.23 this session"));
  assert(statusOf({}).includes("Cost: not known (no pricing for this model"));
});
