/**
 * Black box: a provider that echoes the key around the point where scv cuts its text (a non-JSON
 * event cut at 200 characters, an SSE error cut at 2,000) leaves no piece of it in any event, on
 * stderr or in the recorded session.
 */
import { assert } from "../support/assert.ts";
import { MockOpenAI } from "../support/mock_openai.ts";
import { withServer } from "../support/server_process.ts";

const KEY = "sk-proj-" + "Zq4Wv8Rt".repeat(8);

/** Every file under `dir`, as text. */
async function filesUnder(dir: string): Promise<string> {
  let all = "";
  try {
    for await (const e of Deno.readDir(dir)) {
      const p = `${dir}/${e.name}`;
      all += e.isDirectory ? await filesUnder(p) : await Deno.readTextFile(p);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return all;
}

Deno.test("a key echoed across scv's cuts leaves no 8-character piece in events, stderr or the session record", async () => {
  const mock = await MockOpenAI.start([
    { kind: "stream", events: [`data: <${"=".repeat(180)}${KEY} tail\n\n`], done: false },
    { kind: "stream", events: [`event: error\ndata: ${"=".repeat(1990)}${KEY}\n\n`], done: false },
  ]);
  await withServer(mock, { env: { OPENAI_API_KEY: KEY } }, async (server) => {
    const { sessionId } = await server.open();
    const first = await server.runTurn(sessionId, "one");
    const second = await server.runTurn(sessionId, "two");
    assert(first.done.type === "turn.failed" && second.done.type === "turn.failed");
    assert(first.done.message.includes("not JSON"), first.done.message);
    assert(second.done.message.includes("reported an error"), second.done.message);
    const record = await filesUnder(`${server.tempDir}/xdg-state`);
    assert(record.includes(sessionId) && record.includes('"one"'), "the session is recorded");
    const everything = [server.rawLines.join("\n"), server.stderr, record];
    for (let i = 0; i + 8 <= KEY.length; i++) {
      const piece = KEY.slice(i, i + 8);
      for (const text of everything) assert(!text.includes(piece), `${piece} in ${text}`);
    }
    // Nor the start of the key right where the filler ends (a cut inside it).
    for (const text of everything) assert(!text.includes("=s"), text);
  });
});
