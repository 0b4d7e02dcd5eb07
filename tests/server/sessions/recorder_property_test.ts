/**
 * The recorder's diffing against a model: any sequence of appends, compactions (a record plus
 * the kept suffix), trims, snapshots of unrelated histories and clears, observed at random
 * points, replays from the file to exactly the live history.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ChatMessage } from "../../../server/provider/types.ts";
import { type RecordedSessionView, Recorder } from "../../../server/sessions/recorder.ts";
import { replay } from "../../../server/sessions/records.ts";
import { SessionStore } from "../../../server/sessions/store.ts";

type Op =
  | { kind: "append"; n: number }
  | { kind: "compact"; keep: number }
  | { kind: "trim"; drop: number }
  | { kind: "replace" }
  | { kind: "clear" }
  | { kind: "observe" }
  | { kind: "endTurn" };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), n: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("compact" as const), keep: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant("trim" as const), drop: fc.integer({ min: 1, max: 4 }) }),
  fc.constant({ kind: "replace" as const }),
  fc.constant({ kind: "clear" as const }),
  fc.constant({ kind: "observe" as const }),
  fc.constant({ kind: "endTurn" as const }),
);

Deno.test("any sequence of history changes replays from the file to the live history", async () => {
  const root = await Deno.makeTempDir({ prefix: "scv-recorder-prop-" });
  try {
    const store = new SessionStore({
      dir: `${root}/sessions`,
      secrets: [],
      retentionDays: 30,
      maxSessions: 10_000,
      log: () => {},
    });
    await store.ready;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        let counter = 0;
        const msg = (): ChatMessage =>
          counter % 2 === 0
            ? { role: "user", content: `m${counter++}` }
            : { role: "assistant", content: `m${counter++}` };
        const view = {
          id: crypto.randomUUID(),
          cwd: "/w",
          history: [msg()] as ChatMessage[],
          usage: { input_tokens: 0, output_tokens: 0 },
          compactedMessages: 0,
          lastSeq: 0,
          model: "m",
          approvalPolicy: "on-risk",
        } satisfies RecordedSessionView;
        const recorder = new Recorder(view, { store, log: () => {} });
        recorder.observe({ type: "turn.started" });
        for (const o of ops) {
          view.lastSeq++;
          switch (o.kind) {
            case "append":
              for (let i = 0; i < o.n; i++) view.history.push(msg());
              break;
            case "compact":
              view.history = [
                { role: "user", content: "[scv: earlier conversation compacted]\nx" },
                ...view.history.slice(Math.max(0, view.history.length - o.keep)),
              ];
              break;
            case "trim":
              view.history = view.history.slice(o.drop);
              break;
            case "replace":
              view.history = [msg(), msg()];
              break;
            case "clear":
              view.history = [];
              await recorder.clear(view.lastSeq);
              break;
            case "observe":
              recorder.observe({ type: "assistant.delta" });
              break;
            case "endTurn":
              await recorder.endTurn("completed", view.lastSeq);
              break;
          }
        }
        await recorder.endTurn("completed", ++view.lastSeq);
        recorder.close();
        const text = await Deno.readTextFile(`${root}/sessions/${view.id}.jsonl`);
        const r = replay(text);
        assert.deepEqual(r.history, view.history);
        assert.equal(r.badLines, 0);
        assert.equal(r.seq, view.lastSeq);
      }),
      { numRuns: 60 },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
