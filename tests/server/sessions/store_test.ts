/**
 * The session store and recorder in process, on a temporary directory: files and modes, the
 * index (stale, torn, missing), listing, retention and max_sessions, torn files on load, and a
 * recorded history replaying to the live one.
 */
import assert from "node:assert/strict";
import { Recorder } from "../../../server/sessions/recorder.ts";
import { replay } from "../../../server/sessions/records.ts";
import { MAX_SESSION_FILE_BYTES } from "../../../server/sessions/session_file.ts";
import { INDEX_FILE } from "../../../server/sessions/session_index.ts";
import { FakeSession } from "./fake_session.ts";
import {
  INDEX_COMPACT_EVERY,
  SessionLookupError,
  SessionStore,
  type StoreOptions,
} from "../../../server/sessions/store.ts";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2026-12-01T10:00:00.000Z");

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "scv-store-" });
  try {
    await fn(`${dir}/sessions`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function store(dir: string, options: Partial<StoreOptions> = {}): SessionStore {
  return new SessionStore({
    dir,
    secrets: [],
    retentionDays: 30,
    maxSessions: 100,
    log: () => {},
    now: () => NOW,
    ...options,
  });
}

/** Records `turns` complete turns of a new session; returns the session, recorder closed. */
async function recordSession(
  s: SessionStore,
  cwd: string,
  prompts: string[],
): Promise<FakeSession> {
  const session = new FakeSession(cwd);
  const recorder = new Recorder(session, { store: s, log: () => {} });
  for (const prompt of prompts) {
    session.history.push({ role: "user", content: prompt });
    session.lastSeq++;
    recorder.observe({ type: "turn.started" });
    session.history.push({ role: "assistant", content: `answer to ${prompt}` });
    session.usage.input_tokens += 10;
    session.usage.output_tokens += 2;
    session.lastSeq += 2;
    await recorder.endTurn("completed", session.lastSeq);
  }
  recorder.close();
  return session;
}

Deno.test("a recorded session's file is 0600 in a 0700 directory and replays to its history", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = await recordSession(s, "/w", ["one", "two"]);
    const path = `${dir}/${session.id}.jsonl`;
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    assert.equal(Deno.statSync(`${dir}/${INDEX_FILE}`).mode! & 0o777, 0o600);
    const r = replay(Deno.readTextFileSync(path));
    assert.deepEqual(r.history, session.history);
    assert.equal(r.seq, session.lastSeq);
    assert.deepEqual(r.usage, session.usage);
    assert.equal(r.turns, 2);
  });
});

Deno.test("listing is newest first, filters by cwd and stops at the limit", async () => {
  await withDir(async (dir) => {
    let now = NOW;
    const s = store(dir, { now: () => now });
    await s.ready;
    const ids: string[] = [];
    for (const [i, cwd] of ["/a", "/b", "/a", "/a"].entries()) {
      now = NOW + i * 1000;
      ids.push((await recordSession(s, cwd, [`prompt ${i}`])).id);
    }
    const all = await s.list({ limit: 50 });
    assert.deepEqual(all.sessions.map((e) => e.session_id), [...ids].reverse());
    const a = await s.list({ cwd: "/a", limit: 2 });
    assert.deepEqual(a.sessions.map((e) => e.session_id), [ids[3], ids[2]]);
    assert.equal(a.matched, 3);
    assert.equal(a.sessions[0]!.title, "prompt 3");
    assert.equal(a.sessions[0]!.turns, 1);
  });
});

Deno.test("a missing index is rebuilt from the session files", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = await recordSession(s, "/w", ["hello there"]);
    Deno.removeSync(`${dir}/${INDEX_FILE}`);
    const listed = await store(dir).list({ limit: 10 });
    assert.deepEqual(listed.sessions.map((e) => [e.session_id, e.title, e.turns]), [
      [session.id, "hello there", 1],
    ]);
    assert.ok(Deno.readTextFileSync(`${dir}/${INDEX_FILE}`).includes(session.id));
  });
});

Deno.test("a torn index line and an entry for a deleted file do not break listing", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const kept = await recordSession(s, "/w", ["kept"]);
    const gone = await recordSession(s, "/w", ["gone"]);
    Deno.removeSync(`${dir}/${gone.id}.jsonl`);
    Deno.writeTextFileSync(`${dir}/${INDEX_FILE}`, '{"session_id":"torn', { append: true });
    const listed = await store(dir).list({ limit: 10 });
    assert.deepEqual(listed.sessions.map((e) => e.session_id), [kept.id]);
  });
});

Deno.test("retention deletes sessions not updated for session_retention_days, and logs it", async () => {
  await withDir(async (dir) => {
    let now = NOW - 40 * DAY;
    const old = store(dir, { now: () => now });
    await old.ready;
    const stale = await recordSession(old, "/w", ["old"]);
    now = NOW;
    const fresh = await recordSession(old, "/w", ["new"]);
    const lines: string[] = [];
    const later = store(dir, { now: () => NOW, log: (l) => lines.push(l) });
    await later.ready;
    assert.equal(await exists(`${dir}/${stale.id}.jsonl`), false);
    assert.equal(await exists(`${dir}/${fresh.id}.jsonl`), true);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /deleted 1 recorded session \(1 not updated for 30 days/);
    assert.ok(lines[0]!.includes(stale.id));
    const listed = await later.list({ limit: 10 });
    assert.deepEqual(listed.sessions.map((e) => e.session_id), [fresh.id]);
  });
});

Deno.test("beyond max_sessions the oldest sessions are deleted at startup", async () => {
  await withDir(async (dir) => {
    let now = NOW;
    const s = store(dir, { now: () => now });
    await s.ready;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      now = NOW + i * 1000;
      ids.push((await recordSession(s, "/w", [`p${i}`])).id);
    }
    const lines: string[] = [];
    const capped = store(dir, { maxSessions: 2, now: () => now, log: (l) => lines.push(l) });
    await capped.ready;
    const left = (await capped.list({ limit: 10 })).sessions.map((e) => e.session_id);
    assert.deepEqual(left, [ids[3], ids[2]]);
    assert.match(lines[0]!, /2 beyond max_sessions 2/);
  });
});

Deno.test("a session held open by a recorder is not deleted by retention", async () => {
  await withDir(async (dir) => {
    const s = store(dir, { now: () => NOW - 40 * DAY });
    await s.ready;
    const session = new FakeSession("/w");
    const recorder = new Recorder(session, { store: s, log: () => {} });
    session.history.push({ role: "user", content: "still open" });
    await recorder.endTurn("completed", 1);
    try {
      const later = store(dir, { now: () => NOW });
      await later.ready;
      assert.equal(await exists(`${dir}/${session.id}.jsonl`), true);
    } finally {
      recorder.close();
    }
  });
});

Deno.test("loading a torn file reports the torn tail once and cuts it off the file", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = await recordSession(s, "/w", ["one"]);
    const path = `${dir}/${session.id}.jsonl`;
    const whole = Deno.readTextFileSync(path);
    Deno.writeTextFileSync(path, '{"t":"msg","m":{"role":"user","con', { append: true });
    const lines: string[] = [];
    const reader = store(dir, { log: (l) => lines.push(l) });
    const first = await reader.load(session.id, "/w");
    assert.equal(first.state.tornTail, true);
    assert.deepEqual(first.state.history, session.history);
    first.file.close();
    assert.equal(Deno.readTextFileSync(path), whole, "the torn bytes are gone from the file");
    assert.equal(lines.filter((l) => l.includes("torn")).length, 1);
    const second = await reader.load(session.id, "/w");
    assert.equal(second.state.tornTail, false);
    assert.equal(second.state.badLines, 0);
    second.file.close();
  });
});

Deno.test("load refuses an unknown id, a foreign cwd and a session held by another opener", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = await recordSession(s, "/w", ["one"]);
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
        return "opened";
      } catch (e) {
        assert.ok(e instanceof SessionLookupError, String(e));
        return e.code;
      }
    };
    assert.equal(await code(s.load(crypto.randomUUID(), "/w")), "session_not_found");
    assert.equal(await code(s.load("last", "/elsewhere")), "session_not_found");
    assert.equal(await code(s.load(session.id, "/elsewhere")), "invalid_request");
    const held = await s.load(session.id, "/w");
    try {
      assert.equal(await code(s.load(session.id, "/w")), "invalid_request");
    } finally {
      held.file.close();
    }
  });
});

Deno.test("compaction and trimming are recorded as rewrites and replay to the live history", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = new FakeSession("/w");
    const recorder = new Recorder(session, { store: s, log: () => {} });
    for (let i = 0; i < 6; i++) {
      session.history.push({ role: "user", content: `p${i}` });
      recorder.observe({ type: "turn.started" });
      session.history.push({ role: "assistant", content: `a${i}` });
      if (i === 3) {
        // Compaction: a record, then the kept messages (the same objects).
        session.history = [
          { role: "user", content: "[scv: earlier conversation compacted]\n..." },
          ...session.history.slice(4),
        ];
        session.compactedMessages += 4;
      }
      if (i === 5) session.history = session.history.slice(2); // trimming
      await recorder.endTurn("completed", i + 1);
    }
    recorder.close();
    const text = Deno.readTextFileSync(`${dir}/${session.id}.jsonl`);
    assert.ok(text.includes('"t":"rewrite"'));
    assert.ok(!text.includes('"t":"snapshot"'));
    const r = replay(text);
    assert.deepEqual(r.history, session.history);
    assert.equal(r.compacted, 4);
  });
});

Deno.test("a recording failure is logged once and the session goes on unrecorded", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const lines: string[] = [];
    const session = new FakeSession("/w");
    const recorder = new Recorder(session, { store: s, log: (l) => lines.push(l) });
    // A directory where the session's file should go: creating the file fails (even as root).
    Deno.mkdirSync(`${dir}/${session.id}.jsonl`);
    for (let i = 0; i < 3; i++) {
      session.history.push({ role: "user", content: `p${i}` });
      recorder.observe({ type: "turn.started" });
      await recorder.endTurn("completed", i + 1);
    }
    assert.equal(recorder.persistent, false);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /recording session .* stopped/);
    assert.equal(recorder.turns, 3);
  });
});

Deno.test("a session file past its bound is rewritten as one snapshot that replays the same", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = new FakeSession("/w");
    session.configured = true;
    session.model = "chosen";
    const bound = 4096;
    const recorder = new Recorder(session, { store: s, log: () => {}, maxFileBytes: bound });
    const path = `${dir}/${session.id}.jsonl`;
    let rewrites = 0;
    let last = 0;
    for (let i = 0; i < 40; i++) {
      session.history.push({ role: "user", content: `prompt ${i} ${"x".repeat(100)}` });
      recorder.observe({ type: "turn.started" });
      session.history.push({ role: "assistant", content: `answer ${i}` });
      // Trimming keeps the live history short, as max_history_bytes would.
      if (session.history.length > 8) session.history = session.history.slice(2);
      session.lastSeq += 3;
      await recorder.endTurn("completed", session.lastSeq);
      const size = Deno.statSync(path).size;
      if (size < last) rewrites++;
      last = size;
      assert.ok(size <= bound + 1024, `${size} bytes after turn ${i}`);
    }
    recorder.close();
    assert.ok(rewrites > 0, "the file was rewritten");
    const r = replay(Deno.readTextFileSync(path));
    assert.deepEqual(r.history, session.history);
    assert.equal(r.turns, 40);
    assert.equal(r.title, `prompt 0 ${"x".repeat(71)}`);
    assert.equal(r.seq, session.lastSeq);
    assert.equal(r.model, "chosen");
    assert.equal(r.configured, true);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    const leftovers = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".tmp"));
    assert.deepEqual(leftovers, []);
  });
});

Deno.test("a long-running process rewrites the index to one line per session", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.ready;
    const session = await recordSession(s, "/w", ["one"]);
    const entry = (await s.list({ limit: 1 })).sessions[0]!;
    for (let i = 0; i < INDEX_COMPACT_EVERY; i++) s.updateIndex({ ...entry, turns: i });
    await s.settled();
    const lines = Deno.readTextFileSync(`${dir}/${INDEX_FILE}`).trim().split("\n");
    assert.ok(lines.length < INDEX_COMPACT_EVERY / 2, `${lines.length} lines`);
    const listed = (await s.list({ limit: 5 })).sessions;
    assert.deepEqual(listed.map((e) => e.session_id), [session.id]);
  });
});

Deno.test("a recorder used before its store has started records the whole turn at its end", async () => {
  await withDir(async (dir) => {
    const s = store(dir); // startup (mkdir, retention) still in flight
    assert.equal(s.started, false);
    const session = new FakeSession("/w");
    const recorder = new Recorder(session, { store: s, log: () => {} });
    session.history.push({ role: "user", content: "early prompt" });
    recorder.observe({ type: "turn.started" });
    session.history.push({ role: "assistant", content: "early answer" });
    recorder.observe({ type: "assistant.completed" });
    await recorder.endTurn("completed", 3);
    recorder.close();
    const r = replay(Deno.readTextFileSync(`${dir}/${session.id}.jsonl`));
    assert.deepEqual(r.history, session.history);
    assert.equal(r.title, "early prompt");
  });
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a file named like a session but larger than a session file is skipped unread, and said", async () => {
  await withDir(async (dir) => {
    const lines: string[] = [];
    const s = store(dir, { log: (l) => lines.push(l) });
    await s.ready;
    const id = crypto.randomUUID();
    // Sparse: one byte past the bound without writing 256 MiB.
    const path = `${dir}/${id}.jsonl`;
    await Deno.writeTextFile(path, "");
    await Deno.truncate(path, MAX_SESSION_FILE_BYTES + 1);
    const list = await s.list({ limit: 10 });
    assert.equal(list.matched, 0);
    assert.ok(
      lines.some((l) =>
        l.includes(id) && l.includes(`${MAX_SESSION_FILE_BYTES + 1} bytes, more than the`)
      ),
      lines.join("\n"),
    );
  });
});
