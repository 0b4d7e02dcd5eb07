/**
 * `models.list` and `files.list` over the real server: what the TUI asks the server for instead
 * of reaching past it (the provider's list with the server's key, the workspace's paths as the
 * tools see them), so that a client under `--server-command` gets the server's answers.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { ServerProcess } from "../../../support/server_process.ts";

async function withModelsServer(
  fn: (baseUrl: string, auth: () => string | null) => Promise<void>,
): Promise<void> {
  let auth: string | null = null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    auth = req.headers.get("authorization");
    if (new URL(req.url).pathname !== "/v1/models") return new Response("no", { status: 404 });
    return Response.json({ data: [{ id: "zeta-1" }, { id: "alpha-2" }] });
  });
  try {
    await fn(`http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/v1`, () => auth);
  } finally {
    await server.shutdown();
  }
}

Deno.test("models.list answers with the provider's models, asked with the server's key", async () => {
  await withModelsServer(async (base, auth) => {
    const server = await ServerProcess.start({
      config: { base_url: base },
      env: { OPENAI_API_KEY: "sk-server-side-key" },
    });
    try {
      const { sessionId } = await server.open();
      await server.send({ type: "models.list", request_id: "m1", session_id: sessionId });
      const ev = await server.nextOf("models.list");
      assertEquals([ev.request_id, ev.session_id, ev.models, ev.error], [
        "m1",
        sessionId,
        ["alpha-2", "zeta-1"],
        undefined,
      ]);
      assertEquals(auth(), "Bearer sk-server-side-key");
      assertEquals(await server.stop(), 0);
    } catch (e) {
      await server.kill();
      throw e;
    }
  });
});

Deno.test("models.list says why when the provider cannot be asked, without the key", async () => {
  const server = await ServerProcess.start({
    config: { base_url: "http://127.0.0.1:9/v1" },
    env: { OPENAI_API_KEY: "sk-never-shown-1234" },
  });
  try {
    const { sessionId } = await server.open();
    await server.send({ type: "models.list", request_id: "m2", session_id: sessionId });
    const ev = await server.nextOf("models.list");
    assertEquals(ev.models, []);
    assert(typeof ev.error === "string" && ev.error.includes("127.0.0.1:9"), ev.error);
    assert(!JSON.stringify(ev).includes("sk-never"), JSON.stringify(ev));
    await server.send({ type: "models.list", request_id: "m3", session_id: "nope" });
    const err = await server.nextOf("error");
    assertEquals([err.request_id, err.code], ["m3", "session_not_found"]);
    assertEquals(await server.stop(), 0);
  } catch (e) {
    await server.kill();
    throw e;
  }
});

Deno.test("files.list lists the workspace as the tools see it, within its limit", async () => {
  const server = await ServerProcess.start();
  try {
    const dir = await Deno.makeTempDir({ prefix: "scv-files-" });
    await Deno.mkdir(`${dir}/src`);
    await Deno.mkdir(`${dir}/build`);
    await Deno.writeTextFile(`${dir}/.gitignore`, "build/\n");
    await Deno.writeTextFile(`${dir}/src/a.ts`, "");
    await Deno.writeTextFile(`${dir}/build/out.js`, "");
    const { sessionId } = await server.open(dir);
    await server.send({ type: "files.list", request_id: "f1", session_id: sessionId });
    const all = await server.nextOf("files.list");
    assertEquals([all.request_id, all.paths, all.truncated], [
      "f1",
      [".gitignore", "src/", "src/a.ts"],
      false,
    ]);
    await server.send({ type: "files.list", request_id: "f2", session_id: sessionId, limit: 2 });
    const cut = await server.nextOf("files.list");
    assertEquals([cut.paths, cut.truncated], [[".gitignore", "src/"], true]);
    await server.send({ type: "files.list", request_id: "f3", session_id: sessionId, limit: 0 });
    const bad = await server.nextOf("error");
    assertEquals([bad.request_id, bad.code], ["f3", "invalid_request"]);
    assertEquals(await server.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  } catch (e) {
    await server.kill();
    throw e;
  }
});

/** A workspace for files.read: text, binary, ignored, denied by a rule, hidden by the config. */
async function mentionWorkspace(): Promise<{ dir: string; ws: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-files-read-" }));
  const ws = `${dir}/ws`;
  await Deno.mkdir(`${ws}/.scv`, { recursive: true });
  await Deno.mkdir(`${ws}/secrets`);
  await Deno.mkdir(`${ws}/vault`);
  await Deno.writeTextFile(`${ws}/notes.md`, "# Notes\nship it\n");
  await Deno.writeTextFile(`${ws}/big.txt`, "y".repeat(100_000));
  await Deno.writeFile(`${ws}/logo.png`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
  await Deno.writeTextFile(`${ws}/.gitignore`, ".env\n");
  await Deno.writeTextFile(`${ws}/.env`, "API_KEY=sk-ignored\n");
  await Deno.writeTextFile(`${ws}/secrets/token.txt`, "sk-denied\n");
  await Deno.writeTextFile(`${ws}/vault/key.txt`, "sk-hidden\n");
  await Deno.writeTextFile(`${dir}/outside.txt`, "sk-outside\n");
  await Deno.writeTextFile(
    `${ws}/.scv/rules.jsonc`,
    JSON.stringify([{
      tool: "read_file",
      path: "secrets/**",
      decision: "deny",
      justification: "tokens stay here",
    }]),
  );
  return { dir, ws };
}

Deno.test("files.read gives a workspace file's text, and refuses outside, binary, hidden and denied ones", async () => {
  const { dir, ws } = await mentionWorkspace();
  const server = await ServerProcess.start({ config: { sandbox_deny_read: [`${ws}/vault`] } });
  try {
    const { sessionId } = await server.open(ws);
    const read = async (id: string, path: string) => {
      await server.send({ type: "files.read", request_id: id, session_id: sessionId, path });
      return await server.nextOf("files.read");
    };
    const ok = await read("r1", "notes.md");
    assertEquals([ok.request_id, ok.path, ok.text, ok.size, ok.truncated, ok.refused], [
      "r1",
      "notes.md",
      "# Notes\nship it\n",
      16,
      false,
      undefined,
    ]);
    const cases: [string, string, string][] = [
      ["r2", "../outside.txt", "outside"],
      ["r3", `${dir}/outside.txt`, "outside"],
      ["r4", "logo.png", "binary"],
      ["r5", ".env", "hidden"],
      ["r6", "vault/key.txt", "hidden"],
      ["r7", "secrets/token.txt", "denied"],
      ["r8", "nope.txt", "missing"],
    ];
    for (const [id, path, reason] of cases) {
      const ev = await read(id, path);
      assertEquals([ev.request_id, ev.refused?.reason, ev.text], [id, reason, undefined], path);
      assert(typeof ev.refused?.message === "string" && ev.refused.message.includes(path));
      assert(!JSON.stringify(ev).includes("sk-"), JSON.stringify(ev));
    }
    assertEquals(server.schemaErrors, []);
    assertEquals(await server.stop(), 0);
  } catch (e) {
    await server.kill();
    throw e;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("files.read sends at most max_bytes and refuses a max_bytes over its bound", async () => {
  const { dir, ws } = await mentionWorkspace();
  const server = await ServerProcess.start();
  try {
    const { sessionId } = await server.open(ws);
    await server.send({
      type: "files.read",
      request_id: "b1",
      session_id: sessionId,
      path: "big.txt",
    });
    const head = await server.nextOf("files.read");
    assertEquals([head.text.length, head.size, head.truncated], [65_536, 100_000, true]);
    await server.send({
      type: "files.read",
      request_id: "b2",
      session_id: sessionId,
      path: "big.txt",
      max_bytes: 10,
    });
    const small = await server.nextOf("files.read");
    assertEquals([small.text, small.truncated], ["y".repeat(10), true]);
    await server.send({
      type: "files.read",
      request_id: "b3",
      session_id: sessionId,
      path: "big.txt",
      max_bytes: 1024 * 1024 + 1,
    });
    const bad = await server.nextOf("error");
    assertEquals([bad.request_id, bad.code], ["b3", "invalid_request"]);
    assert(bad.message.includes("max_bytes"), bad.message);
    await server.send({
      type: "files.read",
      request_id: "b4",
      session_id: "nope",
      path: "big.txt",
    });
    const lost = await server.nextOf("error");
    assertEquals([lost.request_id, lost.code], ["b4", "session_not_found"]);
    assertEquals(await server.stop(), 0);
  } catch (e) {
    await server.kill();
    throw e;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
