/**
 * Opening a recorded session, once for every face (server/core/recorded_session.ts): the live
 * view a recorder reads, the file bound both faces' recorders get, and a reopened session as its
 * record left it.
 */
import type { AgentContext } from "@agentclientprotocol/sdk";
import { assertEquals } from "../../support/assert.ts";
import { loadSession, newSession, type OpenContext } from "../../../server/acp/open_session.ts";
import { type Config, DEFAULT_CONFIG } from "../../../server/config.ts";
import {
  liveSessionView,
  maxFileBytes,
  newRecorder,
  reopenSession,
} from "../../../server/core/recorded_session.ts";
import type { Runtime } from "../../../server/core/runtime.ts";
import { Session } from "../../../server/core/session.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../../../server/sessions/recorder.ts";
import { SessionStore } from "../../../server/sessions/store.ts";
import { ToolRegistry } from "../../../server/tools/registry.ts";

/** A configuration whose file bound is not the recorder's default. */
const CONFIG: Config = { ...DEFAULT_CONFIG, sandbox: "off", max_history_bytes: 2 * 1024 * 1024 };

async function withStore(fn: (store: SessionStore, cwd: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-reopen-" }));
  const store = new SessionStore({
    dir: `${dir}/sessions`,
    secrets: [],
    retentionDays: 30,
    maxSessions: 100,
    log: () => {},
  });
  await store.ready;
  try {
    await fn(store, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Records one complete turn of a new session in `store`; returns its id. */
async function recordOne(store: SessionStore, cwd: string) {
  const session = new Session(cwd);
  const view = liveSessionView(session, { model: () => "m", approvalPolicy: () => "never" });
  const recorder = newRecorder(view, {
    store,
    config: CONFIG,
    tools: () => undefined,
    log: () => {},
  });
  session.history.push({ role: "user", content: "hello" });
  recorder.observe({ type: "turn.started" });
  session.history.push({ role: "assistant", content: "hi" });
  session.seq.take();
  await recorder.endTurn("completed", session.seq.peek());
  recorder.close();
  return session;
}

Deno.test("the live view reads the session's history, seq and settings as they are now", () => {
  const session = new Session("/work");
  let model = "m1";
  const view = liveSessionView(session, { model: () => model, approvalPolicy: () => "never" });
  assertEquals([view.id, view.cwd, view.history.length, view.lastSeq], [session.id, "/work", 0, 0]);
  session.history.push({ role: "user", content: "hi" });
  session.seq.take();
  model = "m2";
  assertEquals([view.history.length, view.lastSeq, view.model], [1, 1, "m2"]);
  assertEquals([view.approvalPolicy, view.configured], ["never", false]);
});

Deno.test("the live view says configured when its settings say so", () => {
  const view = liveSessionView(new Session("/w"), {
    model: () => "m",
    approvalPolicy: () => "always",
    configured: () => true,
  });
  assertEquals(view.configured, true);
});

Deno.test("a new recorder and a reopened one are both bounded by the config's file limit", async () => {
  await withStore(async (store, cwd) => {
    const recorded = await recordOne(store, cwd);
    const bound = maxFileBytes(CONFIG);
    assertEquals(bound === DEFAULT_MAX_FILE_BYTES, false);
    const recording = { store, config: CONFIG, tools: () => undefined, log: () => {} };
    const fresh = newRecorder(
      liveSessionView(new Session(cwd), {
        model: () => "m",
        approvalPolicy: () => "never",
      }),
      recording,
    );
    assertEquals(fresh.maxFileBytes, bound);
    const reopened = await reopenSession(recorded.id, cwd, recording);
    const recorder = reopened.recorder(liveSessionView(reopened.session, {
      model: () => "m",
      approvalPolicy: () => "never",
    }));
    assertEquals(recorder.maxFileBytes, bound);
    assertEquals(reopened.session.history, recorded.history);
    // The turn end records the seq its terminal event takes.
    assertEquals(reopened.session.seq.last, recorded.seq.peek());
    recorder.close();
  });
});

Deno.test("a reopened session answers a tool call a crash cut off, and records the answer", async () => {
  await withStore(async (store, cwd) => {
    const recorded = await recordOne(store, cwd);
    // A second, interrupted turn: the call was recorded, its result never was.
    const again = await reopenSession(recorded.id, cwd, {
      store,
      config: CONFIG,
      tools: () => undefined,
      log: () => {},
    });
    const view = liveSessionView(again.session, {
      model: () => "m",
      approvalPolicy: () => "never",
    });
    const recorder = again.recorder(view);
    again.session.history.push({ role: "user", content: "run it" });
    recorder.observe({ type: "turn.started" });
    again.session.history.push({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }],
    });
    recorder.sync();
    recorder.close();
    const reopened = await reopenSession(recorded.id, cwd, {
      store,
      config: CONFIG,
      tools: () => undefined,
      log: () => {},
    });
    const last = reopened.session.history.at(-1);
    assertEquals(last?.role, "assistant");
    const r = reopened.recorder(liveSessionView(reopened.session, {
      model: () => "m",
      approvalPolicy: () => "never",
    }));
    const answer = reopened.session.history.at(-1);
    assertEquals([answer?.role, answer?.role === "tool" ? answer.tool_call_id : ""], [
      "tool",
      "c1",
    ]);
    r.close();
    // The answer reached the file: a third opening replays it without answering again.
    const third = await reopenSession(recorded.id, cwd, {
      store,
      config: CONFIG,
      tools: () => undefined,
      log: () => {},
    });
    assertEquals(third.session.history.at(-1)?.role, "tool");
    third.discard();
  });
});

/** An ACP opening context on `store`, with no client-side services. */
function acpContext(store: SessionStore): OpenContext {
  const runtime = { config: CONFIG, tools: new ToolRegistry([]) } as unknown as Runtime;
  return {
    config: CONFIG,
    env: () => undefined,
    log: () => {},
    store,
    deps: runtime,
    mcp: undefined,
    client: {} as AgentContext,
    capabilities: {},
  };
}

Deno.test("ACP's new and loaded sessions get the config's file limit, as Peon's do", async () => {
  await withStore(async (store, cwd) => {
    const cx = acpContext(store);
    const fresh = await newSession(cx, cwd, []);
    assertEquals(fresh.recorder?.maxFileBytes, maxFileBytes(CONFIG));
    const recorded = await recordOne(store, cwd);
    const { session } = await loadSession(cx, cwd, [], recorded.id);
    assertEquals(session.recorder?.maxFileBytes, maxFileBytes(CONFIG));
    assertEquals(session.core.history, recorded.history);
    session.recorder?.close();
    fresh.recorder?.close();
  });
});
