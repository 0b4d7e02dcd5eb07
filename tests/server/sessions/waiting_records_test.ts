/**
 * The session file's `wait` and `settle` records (scv 0.3): replaying them gives what still
 * waited, in order, bounded, and a bad one is skipped like any foreign line.
 */
import { assertEquals } from "../../support/assert.ts";
import {
  encodeRecord,
  MAX_REPLAYED_WAITING,
  replay,
  type SessionRecord,
} from "../../../server/sessions/records.ts";

const header: SessionRecord = {
  t: "header",
  v: 1,
  session_id: "s",
  cwd: "/w",
  model: "m",
  approval_policy: "on-risk",
  created_at: "2026-12-01T00:00:00.000Z",
};

function fileOf(...records: SessionRecord[]): string {
  return [header, ...records].map(encodeRecord).join("");
}

Deno.test("replay lists what was recorded waiting and not settled, oldest first", () => {
  const s = replay(fileOf(
    { t: "wait", request_id: "s1", prompt: "steer", kind: "steer" },
    { t: "wait", request_id: "q1", prompt: "one", kind: "queue" },
    { t: "wait", request_id: "q2", prompt: "two", kind: "queue" },
    { t: "settle", ids: ["q1"] },
  ));
  assertEquals(s.waiting, [
    { request_id: "s1", prompt: "steer", kind: "steer" },
    { request_id: "q2", prompt: "two", kind: "queue" },
  ]);
  assertEquals(s.badLines, 0);
});

Deno.test("replay keeps at most 64 waiting entries, dropping the oldest", () => {
  const records: SessionRecord[] = [];
  for (let i = 0; i <= MAX_REPLAYED_WAITING; i++) {
    records.push({ t: "wait", request_id: `q${i}`, prompt: "p", kind: "queue" });
  }
  const s = replay(fileOf(...records));
  assertEquals(s.waiting.length, MAX_REPLAYED_WAITING);
  assertEquals(s.waiting[0]!.request_id, "q1");
});

Deno.test("a wait or settle record of the wrong shape is skipped as a bad line", () => {
  const text = fileOf({ t: "wait", request_id: "ok", prompt: "p", kind: "queue" }) +
    JSON.stringify({ t: "wait", request_id: "x", prompt: 3, kind: "queue" }) + "\n" +
    JSON.stringify({ t: "wait", request_id: "y", prompt: "p", kind: "later" }) + "\n" +
    JSON.stringify({ t: "settle", ids: "ok" }) + "\n";
  const s = replay(text);
  assertEquals(s.waiting.map((w) => w.request_id), ["ok"]);
  assertEquals(s.badLines, 3);
});
