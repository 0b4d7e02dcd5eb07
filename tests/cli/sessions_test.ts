/**
 * Recorded sessions from the command line: `scv exec` prints its session id, `--session ID` and
 * `--continue` add a turn to a recorded session, and `scv sessions` lists them (text and NDJSON).
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { MockOpenAI, text } from "../support/mock_openai.ts";
import { SERVER_FLAGS } from "../support/server_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A workspace and a state directory of its own, removed afterwards. */
async function withDirs(fn: (dirs: { cwd: string; state: string }) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "scv-cli-sessions-" });
  try {
    await Deno.mkdir(`${root}/ws`);
    await fn({ cwd: await Deno.realPath(`${root}/ws`), state: `${root}/state` });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function scv(
  args: string[],
  dirs: { cwd: string; state: string },
  mock?: MockOpenAI,
): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...SERVER_FLAGS, MAIN, ...args],
    cwd: dirs.cwd,
    env: {
      OPENAI_BASE_URL: mock?.baseUrl ?? "http://127.0.0.1:9/v1",
      XDG_CONFIG_HOME: `${dirs.state}/config`,
      XDG_STATE_HOME: dirs.state,
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

const SESSION_LINE = /^scv exec: session ([0-9a-f-]{36})( \(resumed\))?$/m;

Deno.test("exec prints its session id on stderr and --session adds a turn to that session", async () => {
  const mock = await MockOpenAI.start([text("first answer"), text("second answer")]);
  try {
    await withDirs(async (dirs) => {
      const first = await scv(["exec", "remember the word kiwi"], dirs, mock);
      assertEquals(first.code, 0, first.stderr);
      const id = SESSION_LINE.exec(first.stderr)?.[1];
      assert(id !== undefined, first.stderr);
      const second = await scv(["exec", "--session", id, "which word?"], dirs, mock);
      assertEquals(second.code, 0, second.stderr);
      assertEquals(second.stdout, "second answer\n");
      assertMatch(second.stderr, new RegExp(`^scv exec: session ${id} \\(resumed\\)$`, "m"));
      const sent = mock.requests[1]!.body.messages.filter((m) => m.role !== "system");
      assertEquals(sent.map((m) => m.content), [
        "remember the word kiwi",
        "first answer",
        "which word?",
      ]);
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec --continue resumes this directory's newest session and --json shows it", async () => {
  const mock = await MockOpenAI.start([text("one"), text("two")]);
  try {
    await withDirs(async (dirs) => {
      const first = await scv(["exec", "start"], dirs, mock);
      const id = SESSION_LINE.exec(first.stderr)?.[1];
      assert(id !== undefined, first.stderr);
      const next = await scv(["exec", "--json", "--continue", "go on"], dirs, mock);
      assertEquals(next.code, 0, next.stderr);
      const events = next.stdout.trim().split("\n").map((l) => JSON.parse(l));
      const started = events.find((e) => e.type === "session.started");
      assertEquals(started.session_id, id);
      assertEquals(started.resumed, true);
      const turnStarted = events.find((e) => e.type === "turn.started");
      assertEquals(turnStarted.seq, started.last_seq + 1);
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec --continue with no recorded session fails with session_not_found", async () => {
  await withDirs(async (dirs) => {
    const r = await scv(["exec", "--continue", "hello"], dirs);
    assertEquals(r.code, 1);
    assertMatch(r.stderr, /no recorded session for/);
  });
});

Deno.test("exec refuses --continue together with --session", async () => {
  await withDirs(async (dirs) => {
    const r = await scv(["exec", "--continue", "--session", crypto.randomUUID(), "hi"], dirs);
    assertEquals(r.code, 2);
    assertMatch(r.stderr, /--continue and --session both name the session/);
  });
});

Deno.test("scv sessions lists recorded sessions newest first, as text and as NDJSON", async () => {
  const mock = await MockOpenAI.start(() => text("ok"));
  try {
    await withDirs(async (dirs) => {
      const empty = await scv(["sessions"], dirs);
      assertEquals(empty.code, 0, empty.stderr);
      assertEquals(empty.stdout, "No recorded sessions.\n");
      const ids: string[] = [];
      for (const prompt of ["the first\nprompt", "the second prompt"]) {
        const r = await scv(["exec", prompt], dirs, mock);
        ids.push(SESSION_LINE.exec(r.stderr)![1]!);
      }
      const json = await scv(["sessions", "--json"], dirs);
      assertEquals(json.code, 0, json.stderr);
      const listed = json.stdout.trim().split("\n").map((l) => JSON.parse(l));
      assertEquals(listed.map((s) => s.session_id), [...ids].reverse());
      assertEquals(listed.map((s) => s.title), ["the second prompt", "the first prompt"]);
      assertEquals(listed[0].cwd, dirs.cwd);
      assertEquals(listed[0].turns, 1);
      const textOut = await scv(["sessions", "--limit", "1"], dirs);
      const all = textOut.stdout.trim().split("\n");
      // The last line is the checkpoints' disk use (each exec turn began a checkpoint log).
      assertMatch(
        all.at(-1)!,
        /^checkpoints: [0-9.]+ KiB for 1 workspace in .*\/scv\/checkpoints$/,
      );
      const lines = all.slice(0, -1);
      assertEquals(lines.length, 1);
      assert(lines[0]!.startsWith(ids[1]!), lines[0]);
      assertMatch(lines[0]!, /1 turn .*the second prompt$/);
      assertMatch(textOut.stderr, /1 older not shown/);
      const bad = await scv(["sessions", "--limit", "0"], dirs);
      assertEquals(bad.code, 2);
    });
  } finally {
    await mock.close();
  }
});

Deno.test("exec's startup deletes sessions past session_retention_days and says so on stderr", async () => {
  const mock = await MockOpenAI.start([text("fresh")]);
  try {
    await withDirs(async (dirs) => {
      const dir = `${dirs.state}/scv/sessions`;
      await Deno.mkdir(dir, { recursive: true });
      const old = crypto.randomUUID();
      const at = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000).toISOString();
      const lines = [
        {
          t: "header",
          v: 1,
          session_id: old,
          cwd: dirs.cwd,
          model: "m",
          approval_policy: "on-risk",
          created_at: at,
        },
        { t: "msg", m: { role: "user", content: "long ago" } },
        {
          t: "mark",
          seq: 3,
          usage: { input_tokens: 1, output_tokens: 1 },
          compacted: 0,
          end: "completed",
          at,
        },
      ];
      await Deno.writeTextFile(
        `${dir}/${old}.jsonl`,
        lines.map((l) => JSON.stringify(l) + "\n").join(""),
      );
      const r = await scv(["exec", "hello"], dirs, mock);
      assertEquals(r.code, 0, r.stderr);
      assertMatch(r.stderr, /deleted 1 recorded session \(1 not updated for 30 days/);
      assertMatch(r.stderr, new RegExp(old));
      const left = [...Deno.readDirSync(dir)].map((e) => e.name);
      assert(!left.includes(`${old}.jsonl`), left.join(", "));
      assert(left.some((n) => n.endsWith(".jsonl") && n !== "index.jsonl"), "the new session");
    });
  } finally {
    await mock.close();
  }
});

Deno.test("scv sessions with a state directory that is a file says why once and exits 1", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(dirs.state, "not a directory");
    const run = await scv(["sessions"], dirs);
    assertEquals(run.code, 1);
    assertEquals(run.stdout, "");
    const lines = run.stderr.trim().split("\n");
    assertEquals(lines.length, 1, run.stderr);
    assertMatch(lines[0]!, /sessions are not recorded: cannot use .*Not a directory/);
  });
});
