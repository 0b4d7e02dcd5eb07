/**
 * `sandbox_network` as a host list, through the real server with bubblewrap: `npm install` from a
 * scripted registry on 127.0.0.1 (listed by address) works through scv's proxy, over HTTP and
 * SOCKS5, while an unlisted host, the metadata address, a private address, a listed name that
 * resolves to loopback and a raw TCP connection all fail, each refusal named in the output. Only
 * 127.0.0.0/8 is ever connected to: the refused destinations are refused before any packet leaves.
 */
import assert from "node:assert/strict";
import { MockOpenAI, type MockReply, text, toolCalls } from "../../../support/mock_openai.ts";
import { type Ev, ServerProcess } from "../../../support/server_process.ts";
import { FAKE_KEY, hostDir, SANDBOX_WORKS } from "../support.ts";
import { LOCKED_DOWN_ENV, SCV_DIR } from "../../../support/locked_down.ts";

const HAS_TOOLS = await Promise.all(
  ["socat", "npm", "curl"].map((t) =>
    new Deno.Command("sh", { args: ["-c", `command -v ${t}`], stdout: "null" }).output()
      .then((o) => o.success, () => false)
  ),
).then((all) => all.every(Boolean));

/** A registry serving one package, `tiny-pkg@1.0.0`, and counting every request. */
async function registry(): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/package`);
  await Deno.writeTextFile(
    `${dir}/package/package.json`,
    JSON.stringify({ name: "tiny-pkg", version: "1.0.0", main: "index.js" }),
  );
  await Deno.writeTextFile(`${dir}/package/index.js`, 'module.exports = "tiny says hi";\n');
  const tar = await new Deno.Command("tar", {
    args: ["-czf", `${dir}/t.tgz`, "-C", dir, "package"],
  })
    .output();
  assert.ok(tar.success);
  const tgz = await Deno.readFile(`${dir}/t.tgz`);
  const sha1 = [...new Uint8Array(await crypto.subtle.digest("SHA-1", tgz))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const hits: string[] = [];
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (req): Response => {
    const url = new URL(req.url);
    hits.push(url.pathname);
    const base: string = `http://127.0.0.1:${server.addr.port}`;
    if (url.pathname === "/tiny-pkg") {
      return Response.json({
        name: "tiny-pkg",
        "dist-tags": { latest: "1.0.0" },
        versions: {
          "1.0.0": {
            name: "tiny-pkg",
            version: "1.0.0",
            main: "index.js",
            dist: { tarball: `${base}/tiny-pkg/-/tiny-pkg-1.0.0.tgz`, shasum: sha1 },
          },
        },
      });
    }
    if (url.pathname === "/tiny-pkg/-/tiny-pkg-1.0.0.tgz") return new Response(tgz);
    if (url.pathname === "/ping") return new Response("pong\n");
    return new Response("not found", { status: 404 });
  });
  return {
    port: server.addr.port,
    hits,
    close: async () => {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs `commands` as one turn's bash calls under `sandbox_network: hosts`. */
async function calls(commands: string[], hosts: string[]): Promise<Ev[]> {
  const workspace = await hostDir("scv-sbx-ws-");
  const mock = await MockOpenAI.start((_req, i): MockReply =>
    i < commands.length
      ? toolCalls([{ id: `call_${i}`, name: "bash", arguments: { command: commands[i] } }])
      : text("done")
  );
  const server = await ServerProcess.start({
    config: { base_url: mock.baseUrl, approval_policy: "auto", sandbox_network: hosts },
    env: { OPENAI_API_KEY: FAKE_KEY },
  });
  try {
    const { sessionId } = await server.open(workspace);
    const { done } = await server.runTurn(sessionId, "go");
    assert.equal(done.type, "turn.completed", JSON.stringify(done));
    return server.events.filter((e) => e.type === "tool.completed");
  } finally {
    await server.kill();
    await mock.close();
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "npm install through an allowed host works while unlisted, metadata, private, loopback-resolving and raw connections fail",
  ignore: !SANDBOX_WORKS || !HAS_TOOLS,
  fn: async () => {
    const reg = await registry();
    // A listener the refused "localhost" must never reach.
    const decoy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let decoyHits = 0;
    const accepting = (async () => {
      for await (const c of decoy) {
        decoyHits++;
        c.close();
      }
    })();
    try {
      const r = `http://127.0.0.1:${reg.port}`;
      const [install, refused, raw, socks] = await calls([
        `npm install --registry ${r}/ --cache /tmp/npm-cache --no-audit --no-fund tiny-pkg && ` +
        `node -e "console.log(require('tiny-pkg'))"`,
        "for u in http://unlisted.example/ http://169.254.169.254/latest/meta-data " +
        `http://10.0.0.1/ http://localhost:${decoy.addr.port}/; do ` +
        'curl -sS -m 10 -o /dev/null -w "$u %{http_code}\\n" "$u" 2>&1; done; exit 0',
        `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${reg.port}), 5); print('RAW-CONNECTED')"`,
        `curl -sS -m 10 --socks5-hostname 127.0.0.1:3128 ${r}/ping && ` +
        "curl -sS -m 10 --socks5-hostname 127.0.0.1:3128 http://169.254.169.254/ || echo socks-refused",
      ], [`127.0.0.1:${reg.port}`, `localhost:${decoy.addr.port}`]);
      assert.equal(install?.success, true, install?.output);
      assert.match(install!.output, /tiny says hi/);
      assert.ok(reg.hits.includes("/tiny-pkg/-/tiny-pkg-1.0.0.tgz"), reg.hits.join());

      const out = refused!.output;
      for (const u of ["unlisted.example/", "169.254.169.254/latest/meta-data", "10.0.0.1/"]) {
        assert.match(out, new RegExp(`http://${u.replaceAll(".", "\\.")} 403`), out);
      }
      assert.match(out, new RegExp(`localhost:${decoy.addr.port}/ 403`), out);
      assert.match(
        out,
        /the connection to 169\.254\.169\.254:80 was refused \(it is not in "sandbox_network"\)/,
      );
      assert.match(out, /the connection to unlisted\.example:80 was refused/);
      assert.match(
        out,
        new RegExp(
          `localhost:${decoy.addr.port} was refused \\(it resolves to 127\\.0\\.0\\.1, a loopback address`,
        ),
      );
      assert.equal(decoyHits, 0);

      assert.equal(raw?.success, false, raw?.output);
      assert.ok(!raw!.output.includes("RAW-CONNECTED"));

      assert.match(socks!.output, /pong/);
      assert.match(socks!.output, /socks-refused/);
      assert.match(socks!.output, /169\.254\.169\.254:80 was refused/);
    } finally {
      decoy.close();
      await accepting.catch(() => {});
      await reg.close();
    }
  },
});

Deno.test({
  name:
    "under locked-down flags the proxy listens on the socket --allow-net names and grants no host beyond --allow-net",
  ignore: !SANDBOX_WORKS || !HAS_TOOLS,
  fn: async () => {
    const reg = await registry();
    const other = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let otherHits = 0;
    const accepting = (async () => {
      for await (const c of other) {
        otherHits++;
        c.close();
      }
    })();
    const top = await hostDir("scv-sbx-lock-");
    const workspace = `${top}/ws`;
    const state = `${top}/state`;
    await Deno.mkdir(workspace);
    const mock = await MockOpenAI.start((_req, i): MockReply =>
      i === 0
        ? toolCalls([{
          id: "call_0",
          name: "bash",
          arguments: {
            command: `curl -sS -m 10 http://127.0.0.1:${reg.port}/ping; ` +
              `curl -sS -m 10 -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:${other.addr.port}/`,
          },
        }])
        : text("done")
    );
    const sock = `${state}/scv/sandbox-proxy.sock`;
    const server = await ServerProcess.start({
      config: {
        base_url: mock.baseUrl,
        approval_policy: "auto",
        sandbox_network: [`127.0.0.1:${reg.port}`, `127.0.0.1:${other.addr.port}`],
      },
      env: { OPENAI_API_KEY: FAKE_KEY, XDG_STATE_HOME: state },
      denoFlags: [
        "--no-prompt",
        // The config file is under /tmp (the test's); HOME is not readable.
        `--allow-read=${SCV_DIR},${workspace},${state},/tmp`,
        `--allow-write=${workspace},${state}`,
        `--allow-net=${new URL(mock.baseUrl).host},127.0.0.1:${reg.port},unix:${sock}`,
        `--allow-env=${LOCKED_DOWN_ENV}`,
        "--allow-run=bwrap",
      ],
    });
    try {
      const { sessionId } = await server.open(workspace);
      const { done } = await server.runTurn(sessionId, "go");
      assert.equal(done.type, "turn.completed", JSON.stringify(done) + server.stderr);
      const call = server.events.find((e) => e.type === "tool.completed")!;
      assert.match(call.output, /pong/);
      assert.match(call.output, /^403$/m);
      assert.match(
        call.output,
        new RegExp(`127\\.0\\.0\\.1:${other.addr.port} was refused \\(scv's own --allow-net`),
      );
      assert.equal(otherHits, 0);
    } finally {
      await server.kill();
      await mock.close();
      other.close();
      await accepting.catch(() => {});
      await reg.close();
      await Deno.remove(top, { recursive: true }).catch(() => {});
    }
  },
});
