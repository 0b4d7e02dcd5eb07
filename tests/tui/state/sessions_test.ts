import { assert, assertEquals } from "../../support/assert.ts";
import type { ServerEvent, SessionSummary } from "../../../protocol/schema.ts";
import {
  applyEvent,
  applyKey,
  applyModelList,
  createState,
  drainOutbox,
  openPicker,
  shownSessions,
} from "../../../tui/state/mod.ts";
import { pickerRows, statusLine } from "../../../tui/render.ts";
import { makeStyle } from "../../../tui/text.ts";
import { enter, key, notices, readyState, sent, sessionStarted, typeText } from "../fixtures.ts";

function resumedStarted(id: string, requestId: string, lastSeq: number): ServerEvent {
  return {
    ...(sessionStarted() as Extract<ServerEvent, { type: "session.started" }>),
    request_id: requestId,
    session_id: id,
    resumed: true,
    last_seq: lastSeq,
  };
}

const summary = (id: string, title: string, turns = 2): SessionSummary => ({
  session_id: id,
  cwd: "/work/project",
  model: "gpt-test",
  created_at: "2026-11-30T08:00:00.000Z",
  updated_at: `2026-11-30T09:${id.padStart(2, "0")}:00.000Z`,
  turns,
  title,
});

function fresh() {
  return createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
  });
}

Deno.test("a resumed session asks for its history and shows each item as the live item it was", () => {
  const s = fresh();
  const fx = applyEvent(s, resumedStarted("old", "c2", 7));
  const ask = sent(fx)[0]!;
  assert(ask.type === "session.history" && ask.session_id === "old");
  const rid = ask.request_id!;
  const env = { request_id: rid, session_id: "old" };
  for (
    const e of [
      { type: "history.item", ...env, role: "user", content: "fix the test" },
      { type: "history.item", ...env, role: "assistant", content: "Looking." },
      {
        type: "history.item",
        ...env,
        role: "tool",
        content: "ok. 12 passed",
        name: "bash",
        summary: "Run shell command: cargo test",
        success: true,
      },
      { type: "history.end", ...env, items: 3, omitted: 2 },
    ] as ServerEvent[]
  ) applyEvent(s, e);
  const items = drainOutbox(s);
  assertEquals(items.slice(0, 3), [
    { kind: "user", text: "fix the test" },
    { kind: "assistant", text: "Looking." },
    {
      kind: "tool",
      callId: "",
      name: "bash",
      args: undefined,
      summary: "Run shell command: cargo test",
      success: true,
      output: "ok. 12 passed",
      truncated: false,
    },
  ]);
  assert(items[3]?.kind === "notice" && items[3].text.includes("3 earlier items"), items[3]?.kind);
  assert(items[3]?.kind === "notice" && items[3].text.includes("2 older messages not shown"));
});

Deno.test("a resumed session's next event continues from last_seq without a warning", () => {
  const s = fresh();
  applyEvent(s, resumedStarted("old", "c2", 7));
  drainOutbox(s);
  applyEvent(s, {
    type: "session.cleared",
    request_id: "x",
    session_id: "old",
    seq: 8,
  });
  assert(!notices(s).some((t) => t.startsWith("Protocol warning")));
});

Deno.test("history items of another request are not shown", () => {
  const s = fresh();
  applyEvent(s, resumedStarted("old", "c2", 1));
  applyEvent(s, {
    type: "history.item",
    request_id: "someone-else",
    session_id: "old",
    role: "user",
    content: "not ours",
  });
  assertEquals(drainOutbox(s), []);
});

Deno.test("/new starts a session; its session.started clears the screen and the transcript", () => {
  const s = readyState();
  enter(s, "hello");
  applyEvent(s, {
    type: "turn.completed",
    request_id: "tui-1",
    session_id: "s1",
    turn_id: "t1",
    seq: 1,
    steps: 1,
  });
  const [start] = enter(s, "/new");
  assert(start?.type === "session.start" && !("resume" in start), JSON.stringify(start));
  const fx = applyEvent(s, {
    ...(sessionStarted() as Extract<ServerEvent, { type: "session.started" }>),
    request_id: start.request_id!,
    session_id: "s2",
  });
  assert(fx.some((f) => f.kind === "clear-screen"));
  assertEquals(s.session?.id, "s2");
  assertEquals(s.transcript.map((i) => i.kind), ["notice"]);
  assertEquals(s.lastSeq, 0);
});

Deno.test("/resume lists this workspace's sessions; typing filters and Enter resumes one", () => {
  const s = readyState();
  const [list] = enter(s, "/resume");
  assert(list?.type === "session.list" && list.cwd === "/work/project", JSON.stringify(list));
  applyEvent(s, {
    type: "session.list",
    request_id: list.request_id!,
    sessions: [
      summary("3", "add the parser"),
      summary("2", "fix the lexer"),
      summary("1", "fix CI"),
    ],
  });
  assertEquals(s.picker?.sessions?.length, 3);
  typeText(s, "f");
  typeText(s, "ix");
  applyKey(s, key("down"));
  const [start] = sent(applyKey(s, key("enter")));
  assert(start?.type === "session.start" && start.resume === "1", JSON.stringify(start));
  assertEquals(s.picker, undefined);
  assertEquals(s.composer.text, "", "the filter is not typed into the composer");
});

Deno.test("Esc closes the /resume picker without sending anything", () => {
  const s = readyState();
  enter(s, "/resume");
  assertEquals(sent(applyKey(s, key("escape"))), []);
  assertEquals(s.picker, undefined);
});

Deno.test("the startup picker with no recorded sessions starts a new session", () => {
  const s = fresh();
  const [list] = sent(openPicker(s, true));
  const fx = applyEvent(s, { type: "session.list", request_id: list!.request_id!, sessions: [] });
  const [start] = sent(fx);
  assert(start?.type === "session.start" && !("resume" in start));
  assert(notices(s).some((t) => t.includes("a new session starts")));
});

Deno.test("Esc on the startup picker starts a new session", () => {
  const s = fresh();
  const [list] = sent(openPicker(s, true));
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [summary("1", "x")],
  });
  const [start] = sent(applyKey(s, key("escape")));
  assert(start?.type === "session.start" && !("resume" in start));
});

Deno.test("a server that refuses session.list still gives the startup picker a new session", () => {
  const s = fresh();
  const [list] = sent(openPicker(s, true));
  const fx = applyEvent(s, {
    type: "error",
    request_id: list!.request_id!,
    code: "invalid_request",
    message: 'Unknown message type "session.list"',
    fatal: false,
  });
  assert(sent(fx)[0]?.type === "session.start");
  assertEquals(s.picker, undefined);
});

Deno.test("a resume refused before any session was open starts a new session instead", () => {
  const s = fresh();
  const [list] = sent(openPicker(s, true));
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [summary("1", "x")],
  });
  const [start] = sent(applyKey(s, key("enter")));
  const fx = applyEvent(s, {
    type: "error",
    request_id: start!.request_id!,
    code: "invalid_request",
    message: "The session is open in another scv process",
    fatal: false,
  });
  const [again] = sent(fx);
  assert(again?.type === "session.start" && !("resume" in again));
});

Deno.test("/compact sends its instructions and shows the reply that belongs to no turn", () => {
  const s = readyState();
  const [msg] = enter(s, "/compact keep the API decisions");
  assert(msg?.type === "session.compact" && msg.instructions === "keep the API decisions");
  assertEquals(s.pending.compact, msg.request_id);
  applyEvent(s, {
    type: "context.compacted",
    request_id: msg.request_id!,
    session_id: "s1",
    seq: 1,
    before_tokens: 9000,
    after_tokens: 1200,
    removed_messages: 6,
  });
  assertEquals(s.pending.compact, undefined);
  assertEquals(s.contextTokens, 1200);
  assert(notices(s).some((t) => t === "Context compacted: 6 messages removed, 9.0k → 1.2k tokens"));
});

Deno.test("/compact while a turn runs is refused and sends nothing", () => {
  const s = readyState();
  enter(s, "work");
  assertEquals(enter(s, "/compact"), []);
  assert(notices(s).some((t) => t.startsWith("Cannot compact while a turn is running")));
});

Deno.test("/model NAME configures the session and session.configured changes the model shown", () => {
  const s = readyState();
  const [msg] = enter(s, "/model gpt-large");
  assert(msg?.type === "session.configure" && msg.model === "gpt-large");
  applyEvent(s, {
    type: "session.configured",
    request_id: msg.request_id!,
    session_id: "s1",
    seq: 1,
    model: "gpt-large",
    approval_policy: "on-risk",
  });
  assertEquals(s.model, "gpt-large");
  assertEquals(s.session?.model, "gpt-large");
  assert(notices(s).some((t) => t.startsWith("Model: gpt-large for the next turns")));
});

Deno.test("/model alone asks for the provider's list, which marks the current model", () => {
  const s = readyState();
  typeText(s, "/model");
  const fx = applyKey(s, key("enter"));
  assert(fx.some((f) => f.kind === "list-models"));
  applyModelList(s, { models: ["gpt-large", "gpt-test"] });
  const text = notices(s).at(-1)!;
  assert(text.includes("* gpt-test") && text.includes("  gpt-large"), text);
});

Deno.test("a model list that cannot be fetched says why and how to set one anyway", () => {
  const s = readyState();
  applyModelList(s, { error: "http://x/v1/models answered HTTP 404" });
  assert(notices(s).at(-1)!.includes("HTTP 404. /model NAME still sets one"));
});

Deno.test("a long model list is bounded and counts the rest", () => {
  const s = readyState();
  applyModelList(s, { models: Array.from({ length: 51 }, (_, i) => `m${i}`) });
  const text = notices(s).at(-1)!;
  assertEquals(text.split("\n").length, 1 + 50 + 1);
  assert(text.endsWith("… 1 more"), text);
});

Deno.test("/resume of a session this connection left with /new switches back without a resume", () => {
  const s = readyState();
  s.lastSeq = 4;
  const [start] = enter(s, "/new");
  applyEvent(s, {
    ...(sessionStarted() as Extract<ServerEvent, { type: "session.started" }>),
    request_id: start!.request_id!,
    session_id: "s2",
  });
  const [list] = enter(s, "/resume");
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [summary("2", "the new one"), { ...summary("1", "the first one"), session_id: "s1" }],
  });
  applyKey(s, key("down"));
  const fx = applyKey(s, key("enter"));
  const [ask] = sent(fx);
  assert(ask?.type === "session.history" && ask.session_id === "s1", JSON.stringify(ask));
  assert(fx.some((f) => f.kind === "clear-screen"));
  assertEquals(s.session?.id, "s1");
  assertEquals(s.lastSeq, 4, "its seq goes on where it was");
  assert(s.otherSessions.has("s2"), "the one left is remembered in turn");
});

Deno.test("the sessions left open are remembered up to MAX_OTHER_SESSIONS, the oldest forgotten", async () => {
  const { MAX_OTHER_SESSIONS } = await import("../../../tui/state/sessions.ts");
  const s = readyState();
  for (let i = 0; i <= MAX_OTHER_SESSIONS; i++) {
    applyEvent(s, {
      ...(sessionStarted() as Extract<ServerEvent, { type: "session.started" }>),
      session_id: `n${i}`,
    });
  }
  assertEquals(s.otherSessions.size, MAX_OTHER_SESSIONS);
  assert(!s.otherSessions.has("s1") && s.otherSessions.has("n0"));
});

Deno.test("a paste while the picker is open filters it", () => {
  const s = readyState();
  const [list] = enter(s, "/resume");
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [summary("2", "add the parser"), summary("1", "fix the lexer")],
  });
  applyKey(s, { type: "paste", text: "lexer" });
  assertEquals(s.picker?.filter, "lexer");
  assertEquals(s.composer.text, "");
});

Deno.test("a resumed prompt shows what was typed and names its attached files, not their content", () => {
  const s = fresh();
  const rid = sent(applyEvent(s, resumedStarted("old", "c2", 7)))[0]!.request_id!;
  drainOutbox(s);
  const body = "line\n".repeat(500);
  applyEvent(s, {
    type: "history.item",
    request_id: rid,
    session_id: "old",
    role: "user",
    content: `look at @a.ts and @b.txt\n\n<file path="a.ts">\nconst a = 1;\n</file>` +
      `\n\n<file path="b.txt">\n${body}\n</file>`,
  });
  assertEquals(drainOutbox(s), [
    { kind: "user", text: "look at @a.ts and @b.txt" },
    { kind: "notice", level: "info", text: "Attached @a.ts, @b.txt" },
  ]);
});

Deno.test("a model list without the current model says the current one is not in it", () => {
  const s = readyState();
  applyModelList(s, { models: ["gpt-a", "gpt-b"] });
  const text = notices(s).at(-1)!;
  assert(text.startsWith("Models (the current one, gpt-test, is not in this list"), text);
  assert(!text.includes("*"), text);
});

Deno.test("a model list whose current model is past the listed rows names it in the heading", () => {
  const s = readyState();
  applyModelList(s, { models: [...Array.from({ length: 60 }, (_, i) => `a${i}`), "gpt-test"] });
  const text = notices(s).at(-1)!;
  assert(text.startsWith("Models (the current one, gpt-test, is further down"), text);
});

/** Lists gpt-a and gpt-test, then `/model NAME` and its `session.configured`: the items shown. */
function setListedModel(name: string) {
  const s = readyState();
  applyModelList(s, { models: ["gpt-a", "gpt-test"] });
  drainOutbox(s);
  const [configure] = enter(s, `/model ${name}`);
  applyEvent(s, {
    type: "session.configured",
    request_id: configure!.request_id!,
    session_id: "s1",
    seq: 1,
    model: name,
    approval_policy: "on-risk",
  });
  return drainOutbox(s);
}

Deno.test("/model NAME warns when the provider's list, once fetched, does not have NAME", () => {
  const items = setListedModel("gpt-z");
  const last = items.at(-1)!;
  assert(last.kind === "notice" && last.level === "warn", JSON.stringify(items));
  assert(last.text.includes("The provider does not list gpt-z"), last.text);
});

Deno.test("/model NAME of a listed model sets it without a warning", () => {
  const items = setListedModel("gpt-a");
  assertEquals(items.map((i) => i.kind === "notice" && i.level), ["info"]);
});

Deno.test("Ctrl+C in the /resume picker clears its filter, then closes it, never arming the exit", () => {
  const s = readyState();
  const [list] = enter(s, "/resume");
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [summary("2", "fix the lexer"), summary("1", "fix CI")],
  });
  typeText(s, "zz");
  assertEquals(applyKey(s, key("c", { ctrl: true })), []);
  assertEquals(s.picker?.filter, "");
  assertEquals(applyKey(s, key("c", { ctrl: true })), []);
  assertEquals(s.picker, undefined);
  assertEquals(s.exitArmed, false);
  assertEquals(s.hint, undefined);
});

Deno.test("Ctrl+C twice on the startup picker exits, as it does anywhere idle", () => {
  const s = fresh();
  const [list] = sent(openPicker(s, true));
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [summary("1", "fix CI")],
  });
  assertEquals(applyKey(s, key("c", { ctrl: true })), []);
  assertEquals(s.exitArmed, true);
  assertEquals(applyKey(s, key("c", { ctrl: true })), [{ kind: "exit", status: 0 }]);
});

Deno.test("a resumed session's context use shows as unknown until a turn measures it", () => {
  const s = fresh();
  const rid = sent(applyEvent(s, resumedStarted("old", "c2", 7)))[0]!.request_id!;
  applyEvent(s, {
    type: "history.item",
    request_id: rid,
    session_id: "old",
    role: "user",
    content: "earlier",
  });
  const view = { width: 80, height: 20, style: makeStyle(false) };
  assert(statusLine(s, view).includes("ctx ?/128k"), statusLine(s, view));
  notices(s);
  enter(s, "/status");
  const text = notices(s).at(-1)!;
  assert(text.includes("Context: not measured since the session was resumed"), text);
});

Deno.test("a resumed session cleared with /clear shows its context use at 0 again", () => {
  const s = fresh();
  const rid = sent(applyEvent(s, resumedStarted("old", "c2", 7)))[0]!.request_id!;
  applyEvent(s, {
    type: "history.item",
    request_id: rid,
    session_id: "old",
    role: "user",
    content: "earlier",
  });
  const [clear] = enter(s, "/clear");
  applyEvent(s, {
    type: "session.cleared",
    request_id: clear!.request_id!,
    session_id: "old",
    seq: 8,
  });
  const line = statusLine(s, { width: 80, height: 20, style: makeStyle(false) });
  assert(line.includes("ctx 0/128k (0%)"), line);
});

Deno.test("the picker shows each session's time in the terminal's time zone", () => {
  const s = createState({
    model: "gpt-test",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
    utcOffsetMinutes: 9 * 60,
  });
  applyEvent(s, sessionStarted());
  const [list] = enter(s, "/resume");
  applyEvent(s, {
    type: "session.list",
    request_id: list!.request_id!,
    sessions: [{ ...summary("1", "fix CI"), updated_at: "2026-11-30T20:42:00.000Z" }],
  });
  const rows = pickerRows(s, 72, makeStyle(false), 10);
  assert(rows.some((r) => r.includes("2026-12-01 05:42")), rows.join("\n"));
  typeText(s, "12-01");
  assertEquals(shownSessions(s.picker!).length, 1, "the filter matches the date shown");
});

Deno.test("/model without a name says it is listing the models until the list arrives", () => {
  const s = readyState();
  const fx = applyKey(s, { type: "text", text: "/model" });
  assertEquals(fx, []);
  assertEquals(applyKey(s, key("enter")).some((f) => f.kind === "list-models"), true);
  assertEquals(s.hint, "Listing the provider's models…");
  applyModelList(s, { models: ["gpt-test"] });
  assertEquals(s.hint, undefined);
});
