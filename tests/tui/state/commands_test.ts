import { assert } from "../../support/assert.ts";
import type { ServerEvent } from "../../../protocol/schema.ts";
import { applyEvent, createState } from "../../../tui/state/mod.ts";
import { enter, notices, sessionStarted } from "../fixtures.ts";

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
