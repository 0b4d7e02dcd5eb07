/**
 * Recorded sessions keep their images as files beside the record (mode 0600, content-addressed,
 * stored once), send them again when resumed, show them as `[image: name]` in `session.history`,
 * and lose them with the session.
 */
import assert from "node:assert/strict";

import { text } from "../../support/mock_openai.ts";
import { makePng } from "../../support/images.ts";
import { SessionStore } from "../../../server/sessions/store.ts";
import {
  sessionFile,
  startSession,
  withRecording,
  withServer,
  withStateDir,
} from "../sessions/support.ts";
import { SessionFile } from "../../../server/sessions/session_file.ts";
import { Redactor } from "../../../server/sessions/redact.ts";
import { imagesDirOf } from "../../../server/sessions/image_files.ts";
import type { ImagePart } from "../../../server/images/image_part.ts";

const PNG = makePng({ width: 4, height: 3, seed: 42 });
const B64 = PNG.toBase64();

async function listDir(dir: string): Promise<Deno.DirEntry[]> {
  const out: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e);
  return out;
}

Deno.test("a recorded image is stored once as a 0600 file named by its SHA-256 beside the record, and a resumed session sends it again", async () => {
  await withRecording([text("one"), text("two")], async ({ mock, state, cwd }) => {
    let id = "";
    await withServer(state, mock.baseUrl, async (a) => {
      id = (await startSession(a, cwd)).session_id;
      await a.send({
        type: "turn.start",
        request_id: "t1",
        session_id: id,
        prompt: "Look twice",
        attachments: [
          { type: "image", media_type: "image/png", data: B64, name: "shot.png" },
          { type: "image", media_type: "image/png", data: B64, name: "again.png" },
        ],
      });
      const started = await a.next((e) => e.request_id === "t1");
      assert.equal(started.type, "turn.started");
      assert.equal((await a.terminal(started.turn_id)).type, "turn.completed");
      assert.equal(await a.stop(), 0);
    });
    const record = await Deno.readTextFile(sessionFile(state, id));
    assert(!record.includes(B64), "the record does not carry the image's bytes");
    const dir = imagesDirOf(sessionFile(state, id));
    const files = await listDir(dir);
    assert.equal(files.length, 1, "the same image twice is stored once");
    // Content-addressed by SHA-256, as every earlier scv wrote them: a session recorded before
    // finds its files again.
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(PNG)))
      .toHex();
    assert.equal(files[0]!.name, `${digest}.png`);
    const path = `${dir}/${files[0]!.name}`;
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    assert.deepEqual(await Deno.readFile(path), PNG);

    await withServer(state, mock.baseUrl, async (b) => {
      const resumed = await startSession(b, cwd, id);
      assert.equal(resumed.resumed, true);
      await b.send({ type: "session.history", request_id: "h", session_id: id });
      await b.next((e) => e.type === "history.end" && e.request_id === "h");
      const items = b.events.filter((e) => e.type === "history.item" && e.request_id === "h");
      assert.equal(items[0]?.content, "Look twice\n[image: shot.png]\n[image: again.png]");
      const { done } = await b.runTurn(id, "And now?");
      assert.equal(done.type, "turn.completed");
      const first = mock.requests[1]!.body.messages.find((m) => m.role === "user")!;
      assert.deepEqual(first.content, [
        { type: "text", text: "Look twice" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${B64}` } },
        { type: "image_url", image_url: { url: `data:image/png;base64,${B64}` } },
      ]);
    });
  });
});

function image(data: Uint8Array, name: string): ImagePart {
  return {
    type: "image",
    media_type: "image/png",
    data: data.toBase64(),
    name,
    bytes: data.length,
    width: 4,
    height: 3,
  };
}

Deno.test("a session's image files are removed with the session", async () => {
  await withStateDir(async (state) => {
    await Deno.mkdir(state.sessions, { recursive: true });
    const id = crypto.randomUUID();
    const path = `${state.sessions}/${id}.jsonl`;
    const file = SessionFile.create(path, {
      t: "header",
      v: 1,
      session_id: id,
      cwd: "/w",
      model: "m",
      approval_policy: "on-risk",
      created_at: new Date(0).toISOString(),
    }, new Redactor([]));
    file.append({ t: "msg", m: { role: "user", content: "hi", images: [image(PNG, "a.png")] } });
    file.append({
      t: "mark",
      seq: 3,
      usage: { input_tokens: 0, output_tokens: 0 },
      compacted: 0,
      end: "completed",
      at: new Date(0).toISOString(),
    });
    file.close();
    assert.equal((await listDir(imagesDirOf(path))).length, 1);
    // Retention: beyond max_sessions 0, the session goes, and its images with it.
    const store = new SessionStore({
      dir: state.sessions,
      secrets: [],
      retentionDays: 30,
      maxSessions: 0,
      log: () => {},
    });
    await store.ready;
    await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(imagesDirOf(path)), Deno.errors.NotFound);
  });
});

Deno.test("a rewritten record removes the image files it no longer references", async () => {
  await withStateDir(async (state) => {
    await Deno.mkdir(state.sessions, { recursive: true });
    const id = crypto.randomUUID();
    const path = `${state.sessions}/${id}.jsonl`;
    const header = {
      t: "header" as const,
      v: 1,
      session_id: id,
      cwd: "/w",
      model: "m",
      approval_policy: "on-risk",
      created_at: new Date(0).toISOString(),
    };
    const file = SessionFile.create(path, header, new Redactor([]));
    const other = makePng({ seed: 7 });
    file.append({
      t: "msg",
      m: { role: "user", content: "old", images: [image(other, "old.png")] },
    });
    file.append({ t: "msg", m: { role: "user", content: "new", images: [image(PNG, "new.png")] } });
    assert.equal((await listDir(imagesDirOf(path))).length, 2);
    file.replace([header, {
      t: "snapshot",
      history: [{ m: { role: "user", content: "new", images: [image(PNG, "new.png")] } }],
    }]);
    file.close();
    const left = await listDir(imagesDirOf(path));
    assert.equal(left.length, 1);
    assert.deepEqual(await Deno.readFile(`${imagesDirOf(path)}/${left[0]!.name}`), PNG);
  });
});

Deno.test("a resumed session whose image file is gone says [image omitted] in its place", async () => {
  await withRecording([text("one"), text("two")], async ({ mock, state, cwd }) => {
    let id = "";
    await withServer(state, mock.baseUrl, async (a) => {
      id = (await startSession(a, cwd)).session_id;
      await a.send({
        type: "turn.start",
        request_id: "t1",
        session_id: id,
        prompt: "Look",
        attachments: [{ type: "image", media_type: "image/png", data: B64 }],
      });
      const started = await a.next((e) => e.request_id === "t1");
      await a.terminal(started.turn_id);
      assert.equal(await a.stop(), 0);
    });
    await Deno.remove(imagesDirOf(sessionFile(state, id)), { recursive: true });
    await withServer(state, mock.baseUrl, async (b) => {
      assert.equal((await startSession(b, cwd, id)).resumed, true);
      await b.runTurn(id, "again");
      const first = mock.requests[1]!.body.messages.find((m) => m.role === "user")!;
      assert.equal(first.content, "Look\n[image omitted]");
    });
  });
});
