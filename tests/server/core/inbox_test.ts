/**
 * The session inbox (server/core/inbox.ts): the order of steers and queued prompts, their
 * bounds, dequeue, halting, and what its observer (the recorder) is told.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { MAX_QUEUED_PER_SESSION, MAX_STEERS_PER_TURN } from "../../../protocol/constants.ts";
import {
  Inbox,
  MAX_WAITING_IMAGE_BYTES,
  MAX_WAITING_IMAGES,
  type Waiting,
} from "../../../server/core/inbox.ts";
import type { ImagePart } from "../../../server/images/image_part.ts";

/** An inbox whose observer writes down every call. */
function observed() {
  const inbox = new Inbox();
  const log: string[] = [];
  inbox.observer = {
    waiting: (w: Waiting) => {
      log.push(`wait ${w.kind} ${w.requestId}`);
      return Promise.resolve();
    },
    settled: (ids) => void log.push(`settled ${ids.join(",")}`),
  };
  return { inbox, log };
}

Deno.test("queued prompts start in the order they were queued, with their positions", () => {
  const inbox = new Inbox();
  const positions = ["a", "b", "c"].map((id) => {
    const r = inbox.enqueue(id, `prompt ${id}`);
    assert(r.ok);
    return r.position;
  });
  assertEquals(positions, [1, 2, 3]);
  assertEquals(
    [inbox.nextQueued(), inbox.nextQueued(), inbox.nextQueued()].map((q) => q?.requestId),
    [
      "a",
      "b",
      "c",
    ],
  );
  assertEquals(inbox.nextQueued(), undefined);
});

Deno.test("the queue refuses one prompt over its bound of 16 and keeps the others", () => {
  const inbox = new Inbox();
  for (let i = 0; i < MAX_QUEUED_PER_SESSION; i++) assert(inbox.enqueue(`q${i}`, "p").ok);
  const over = inbox.enqueue("q16", "p");
  assert(!over.ok);
  assert(over.message.includes("16 prompts already wait"), over.message);
  assertEquals(inbox.queued.length, MAX_QUEUED_PER_SESSION);
  // Once one started there is room again.
  inbox.nextQueued();
  assert(inbox.enqueue("q16", "p").ok);
});

Deno.test("a turn refuses one steer over its bound of 8", () => {
  const inbox = new Inbox();
  inbox.openTurn("t");
  for (let i = 0; i < MAX_STEERS_PER_TURN; i++) assert(inbox.steer("t", `s${i}`, "p").ok);
  const over = inbox.steer("t", "s8", "p");
  assert(!over.ok);
  assert(over.message.includes("8 steers already wait"), over.message);
  // Taken at the safe point, they make room for more.
  assertEquals(inbox.takeSteers("t").length, MAX_STEERS_PER_TURN);
  assert(inbox.steer("t", "s8", "p").ok);
});

Deno.test("a steer for another turn, or with no turn open, is refused", () => {
  const inbox = new Inbox();
  assert(!inbox.steer("t", "s", "p").ok);
  inbox.openTurn("t");
  const other = inbox.steer("u", "s", "p");
  assert(!other.ok && other.message.includes('"u"'));
  inbox.closeTurn("t");
  assert(!inbox.steer("t", "s", "p").ok);
});

Deno.test("dequeue takes a waiting prompt out and leaves the order of the rest", () => {
  const inbox = new Inbox();
  for (const id of ["a", "b", "c"]) inbox.enqueue(id, `prompt ${id}`);
  assertEquals(inbox.dequeue("b"), "prompt b");
  assertEquals(inbox.dequeue("b"), undefined);
  assertEquals(inbox.dequeue("nope"), undefined);
  assertEquals(inbox.queued.map((q) => q.requestId), ["a", "c"]);
});

Deno.test("a second prompt with a queued prompt's request_id is refused", () => {
  const inbox = new Inbox();
  assert(inbox.enqueue("a", "one").ok);
  assert(!inbox.enqueue("a", "two").ok);
});

Deno.test("a halted inbox starts no queued prompt but keeps them waiting", () => {
  const inbox = new Inbox();
  inbox.enqueue("a", "one");
  inbox.halt();
  assertEquals(inbox.nextQueued(), undefined);
  assertEquals(inbox.waiting, [{ requestId: "a", prompt: "one", kind: "queue" }]);
});

Deno.test("closing a turn returns its waiting steers in order and settles them", () => {
  const { inbox, log } = observed();
  inbox.openTurn("t");
  inbox.steer("t", "s1", "one");
  inbox.steer("t", "s2", "two");
  assertEquals(inbox.closeTurn("t"), ["one", "two"]);
  assertEquals(log, ["wait steer s1", "wait steer s2", "settled s1,s2"]);
});

Deno.test("the observer hears every entry accepted and every one that stops waiting", () => {
  const { inbox, log } = observed();
  inbox.openTurn("t");
  inbox.steer("t", "s1", "steer");
  inbox.takeSteers("t");
  inbox.enqueue("q1", "one");
  inbox.enqueue("q2", "two");
  inbox.dequeue("q2");
  inbox.nextQueued();
  assertEquals(log, [
    "wait steer s1",
    "settled s1",
    "wait queue q1",
    "wait queue q2",
    "settled q2",
    "settled q1",
  ]);
});

Deno.test("what a crashed run left waiting is settled when the next turn opens", () => {
  const { inbox, log } = observed();
  inbox.recovered = [{ requestId: "old", prompt: "from before", kind: "queue" }];
  inbox.openTurn("t");
  assertEquals(inbox.recovered, []);
  assertEquals(log, ["settled old"]);
});

/** A checked-looking image part whose base64 is `size` characters. */
function image(name: string, size = 8): ImagePart {
  return {
    type: "image",
    media_type: "image/png",
    data: "A".repeat(size),
    name,
    bytes: size,
    width: 1,
    height: 1,
  };
}

Deno.test("the inbox holds at most 32 waiting images, steers and queue together", () => {
  assertEquals(MAX_WAITING_IMAGES, 32);
  const inbox = new Inbox();
  inbox.openTurn("t");
  const eight = Array.from({ length: 8 }, (_, i) => image(`i${i}.png`));
  assert(inbox.steer("t", "s1", "p", eight).ok);
  assert(inbox.enqueue("q1", "p", eight).ok);
  assert(inbox.enqueue("q2", "p", eight).ok);
  assert(inbox.enqueue("q3", "p", eight.slice(0, 7)).ok);
  // 31 wait: one more fits, two more do not.
  const over = inbox.enqueue("q4", "p", eight.slice(0, 2));
  assert(!over.ok);
  assertEquals(
    over.message,
    "33 images would wait in this session, over the limit of 32; wait for the prompts and " +
      "steers that wait to start, or send fewer images",
  );
  assert(!inbox.steer("t", "s2", "p", eight.slice(0, 2)).ok);
  // A prompt without images is not held back by them.
  assert(inbox.enqueue("q5", "text only").ok);
  assert(inbox.enqueue("q4", "p", eight.slice(0, 1)).ok);
  // Once a steer entered, its images no longer count.
  inbox.takeSteers("t");
  assert(inbox.enqueue("q6", "p", eight).ok);
});

Deno.test("the inbox holds at most 32 MiB of waiting image base64", () => {
  assertEquals(MAX_WAITING_IMAGE_BYTES, 32 * 1024 * 1024);
  const inbox = new Inbox();
  const quarter = image("big.png", MAX_WAITING_IMAGE_BYTES / 4);
  for (let i = 0; i < 4; i++) assert(inbox.enqueue(`q${i}`, "p", [quarter]).ok);
  // Exactly at the bound; one byte more is refused.
  const over = inbox.enqueue("q4", "p", [image("one.png", 1)]);
  assert(!over.ok);
  assert(over.message.includes(`${MAX_WAITING_IMAGE_BYTES + 1} bytes as base64`), over.message);
  assertEquals(inbox.queued.length, 4);
  // Dequeued, a prompt's images make room again.
  inbox.dequeue("q0");
  assert(inbox.enqueue("q4", "p", [image("one.png", 1)]).ok);
});

Deno.test("the observer is told the names of a waiting entry's images, never their bytes", () => {
  const { inbox } = observed();
  const seen: Waiting[] = [];
  inbox.observer = { waiting: (w) => (seen.push(w), Promise.resolve()), settled: () => {} };
  inbox.openTurn("t");
  inbox.steer("t", "s", "see", [image("a.png"), image("b.png")]);
  inbox.enqueue("q", "then", [image("c.png")]);
  inbox.enqueue("r", "plain");
  assertEquals(seen, [
    { requestId: "s", prompt: "see", kind: "steer", images: ["a.png", "b.png"] },
    { requestId: "q", prompt: "then", kind: "queue", images: ["c.png"] },
    { requestId: "r", prompt: "plain", kind: "queue" },
  ]);
  assertEquals(inbox.waiting, seen);
});
