/**
 * scv against a real llama.cpp `llama-server`, built from source by `.ci/llama/build.sh` with a
 * small deterministic Qwen2-vocabulary model (`.ci/llama/make_model.py`: it answers "Hello"),
 * and a second one with Qwen2.5's tool template that calls `read_file` and then answers "Done".
 * `SCV_LLAMA_DIR` names the build's directory; `.ci/run` always sets it, so in CI these tests
 * always run. Without it (a developer who did not build llama-server) they are skipped.
 *
 * A counting proxy sits between scv and llama-server where a test needs to count requests or
 * to hide the server's window questions (so that only the server's overflow answer can teach it).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type Ev, SERVER_FLAGS, ServerProcess } from "../support/server_process.ts";

const DIR = Deno.env.get("SCV_LLAMA_DIR");
const ignore = DIR === undefined;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A free port on 127.0.0.1 (bound, then released for the server to take). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Waits until something accepts TCP connections on the port. */
async function listening(port: number, child: Deno.ChildProcess, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  let exited = false;
  child.status.then(() => exited = true);
  while (Date.now() < end && !exited) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error(`llama-server did not listen on ${port}${exited ? " (it exited)" : ""}`);
}

/** A running llama-server. */
class Llama {
  readonly port: number;
  readonly child: Deno.ChildProcess;
  constructor(args: string[], port = freePort(), model = "model-hello.gguf") {
    this.port = port;
    this.child = new Deno.Command(`${DIR}/llama-server`, {
      args: [
        "-m",
        `${DIR}/${model}`,
        "--host",
        "127.0.0.1",
        "--port",
        String(this.port),
        "-t",
        "1",
        "-n",
        "16",
        "--no-webui",
        ...args,
      ],
      stdout: "null",
      stderr: "null",
      stdin: "null",
    }).spawn();
  }
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }
  /** Waits until the model is loaded (`/health` answers 200). */
  async ready(): Promise<void> {
    await listening(this.port, this.child);
    for (let i = 0; i < 600; i++) {
      const res = await fetch(`http://127.0.0.1:${this.port}/health`).catch(() => undefined);
      await res?.body?.cancel();
      if (res?.status === 200) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("llama-server never became healthy");
  }
  async stop(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.child.status;
  }
}

/** A proxy in front of llama-server that counts chat requests and may hide window questions. */
function proxy(target: Llama, options: { hideWindow?: boolean } = {}) {
  const chats: Array<{ tools: boolean; messages: number }> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const isChat = url.pathname.endsWith("/chat/completions");
    if (!isChat && options.hideWindow) return new Response("not found", { status: 404 });
    const body = req.method === "POST" ? await req.text() : undefined;
    if (isChat && body) {
      const json = JSON.parse(body);
      chats.push({ tools: Array.isArray(json.tools), messages: json.messages.length });
    }
    return await fetch(`http://127.0.0.1:${target.port}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      ...(body !== undefined ? { body } : {}),
    });
  });
  return {
    chats,
    baseUrl: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/v1`,
    close: () => server.shutdown(),
  };
}

/** Starts llama-server (and a proxy in front when asked), runs `fn`, and stops both. */
async function withLlama(
  args: string[],
  front: { hideWindow?: boolean } | undefined,
  fn: (baseUrl: string, chats: Array<{ tools: boolean; messages: number }>) => Promise<void>,
): Promise<void> {
  const llama = new Llama(args);
  const p = front ? proxy(llama, front) : undefined;
  try {
    await llama.ready();
    await fn(p?.baseUrl ?? llama.baseUrl, p?.chats ?? []);
  } finally {
    await p?.close();
    await llama.stop();
  }
}

async function withScv(
  baseUrl: string,
  config: Record<string, unknown>,
  fn: (scv: ServerProcess, sessionId: string) => Promise<void>,
): Promise<void> {
  const scv = await ServerProcess.start({
    config: { base_url: baseUrl, model: "local", ...config },
  });
  try {
    const { sessionId } = await scv.open(undefined, { notices: true });
    await fn(scv, sessionId);
  } finally {
    await scv.kill();
  }
}

function said(scv: ServerProcess): string[] {
  return scv.events.filter((e: Ev) => e.type === "turn.notice").map((e) => e.message as string);
}

Deno.test({
  name:
    "a real llama-server answers a turn, and its -c 2048 window caps context_max_tokens with a notice",
  ignore,
  async fn() {
    const llama = new Llama(["-c", "2048", "--jinja"]);
    try {
      await llama.ready();
      await withScv(llama.baseUrl, {}, async (scv, sessionId) => {
        const { done } = await scv.runTurn(sessionId, "Say hello.");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
        const text = scv.events.filter((e) => e.type === "assistant.delta").map((e) => e.content)
          .join("");
        assertEquals(text, "Hello");
        assert(done.usage?.input_tokens > 0, JSON.stringify(done.usage));
        assert(
          said(scv).some((m) =>
            /context window is 2048 tokens \(\/v1\/models meta\.n_ctx\)/.test(m)
          ),
          JSON.stringify(said(scv)),
        );
      });
    } finally {
      await llama.stop();
    }
  },
});

Deno.test({
  name:
    "a conversation that outgrows llama-server's -c 2048 keeps going, compacted, without provider_error",
  ignore,
  async fn() {
    // The window questions are hidden: only llama.cpp's own overflow answer can teach it.
    await withLlama(["-c", "2048", "--jinja"], { hideWindow: true }, async (baseUrl) => {
      await withScv(baseUrl, {}, async (scv, sessionId) => {
        const words = "the quick brown fox jumps over the lazy dog ".repeat(40); // ~400 tokens
        for (let i = 0; i < 6; i++) {
          const { done } = await scv.runTurn(sessionId, `${i}: ${words}`);
          assertEquals(done.type, "turn.completed", `turn ${i}: ${JSON.stringify(done)}`);
        }
        assert(scv.events.some((e) => e.type === "context.compacted"), "it compacted");
        assert(said(scv).some((m) => /context window is full/.test(m)), "an overflow was met");
      });
    });
  },
});

Deno.test({
  name:
    "a prompt of digits that a byte estimate would undercount fits llama-server on the first or the retried request",
  ignore,
  async fn() {
    await withLlama(["-c", "2048", "--jinja"], { hideWindow: true }, async (baseUrl, chats) => {
      await withScv(baseUrl, { context_max_tokens: 2048 }, async (scv, sessionId) => {
        const digits = Array.from({ length: 300 }, (_, i) => String(i % 10)).join(" ");
        for (let i = 0; i < 4; i++) {
          const before = chats.length;
          const { done } = await scv.runTurn(sessionId, digits);
          assertEquals(done.type, "turn.completed", `turn ${i}: ${JSON.stringify(done)}`);
          assert(chats.length - before <= 2, "the first request, or one retry");
        }
      });
    });
  },
});

Deno.test({
  name:
    "llama-server's --no-jinja refusal of tools is remembered by the next scv exec: one request, not two",
  ignore,
  async fn() {
    const llama = new Llama(["-c", "2048", "--no-jinja"]);
    const front = proxy(llama);
    const dir = await Deno.makeTempDir();
    const exec = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", ...SERVER_FLAGS, MAIN, "exec", "--cwd", dir, "Say hello."],
        env: {
          OPENAI_BASE_URL: front.baseUrl,
          XDG_CONFIG_HOME: `${dir}/.config`,
          XDG_STATE_HOME: `${dir}/.state`,
          NO_COLOR: "1",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    try {
      await llama.ready();
      const first = await exec();
      assertEquals(first.code, 0, new TextDecoder().decode(first.stderr));
      assertEquals(front.chats.map((c) => c.tools), [true, false], "refused, then without tools");
      const second = await exec();
      assertEquals(second.code, 0, new TextDecoder().decode(second.stderr));
      assertEquals(new TextDecoder().decode(second.stdout).trim(), "Hello");
      assertEquals(front.chats.map((c) => c.tools), [true, false, false], "one request");
    } finally {
      await front.close();
      await llama.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a turn sent the moment llama-server starts listening completes (a loading model is waited for)",
  ignore,
  async fn() {
    const port = freePort();
    // scv is up, its session open, before llama-server exists.
    await withScv(`http://127.0.0.1:${port}/v1`, {}, async (scv, sessionId) => {
      const llama = new Llama(["-c", "2048", "--jinja"], port);
      try {
        // Listening is not loaded: llama-server answers 503 "Loading model" until it is.
        await listening(llama.port, llama.child);
        const { done } = await scv.runTurn(sessionId, "Say hello.");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
      } finally {
        await llama.stop();
      }
    });
  },
});

Deno.test({
  name:
    "a tool call spelt through llama-server's tool template and grammar runs, and its result goes back",
  ignore,
  async fn() {
    // The call takes 23 tokens: past the -n 16 the other tests use.
    const llama = new Llama(["-c", "4096", "--jinja", "-n", "64"], undefined, "model-tool.gguf");
    const front = proxy(llama);
    try {
      await llama.ready();
      const scv = await ServerProcess.start({
        config: { base_url: front.baseUrl, model: "local" },
      });
      try {
        const cwd = await Deno.makeTempDir();
        await Deno.writeTextFile(`${cwd}/a.txt`, "the file's own words\n");
        const { sessionId } = await scv.open(cwd);
        const { done } = await scv.runTurn(sessionId, "Read a.txt.");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
        const proposed = scv.events.filter((e) => e.type === "tool.proposed");
        assertEquals(proposed.map((e) => [e.name, e.arguments]), [["read_file", {
          path: "a.txt",
        }]]);
        const completed = scv.events.find((e) => e.type === "tool.completed");
        assertEquals(completed?.success, true, JSON.stringify(completed));
        assert(String(completed?.output).includes("the file's own words"), completed?.output);
        const text = scv.events.filter((e) => e.type === "assistant.delta").map((e) => e.content)
          .join("");
        assertEquals(text, "Done");
        assertEquals(front.chats.map((c) => c.tools), [true, true], "the call, then its result");
        assert(front.chats[1]!.messages > front.chats[0]!.messages, "the result went back");
        await Deno.remove(cwd, { recursive: true });
      } finally {
        await scv.kill();
      }
    } finally {
      await front.close();
      await llama.stop();
    }
  },
});
