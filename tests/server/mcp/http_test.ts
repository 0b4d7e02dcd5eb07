/**
 * scv's MCP client over Streamable HTTP against a small scripted server on 127.0.0.1: `${VAR}`
 * headers reach it, and an answer over the message bound fails the call with a message.
 */
import assert from "node:assert/strict";
import { McpServer } from "../../../server/mcp/server.ts";
import { validateMcpServers } from "../../../server/mcp_servers.ts";

/** A JSON-only MCP server: answers initialize, tools/list and tools/call (`big` is 20 MB). */
function scriptedHttp() {
  const headers: Headers[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    headers.push(req.headers);
    const msg = await req.json();
    if (msg.id === undefined) return new Response(null, { status: 202 });
    const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: msg.id, result });
    switch (msg.method) {
      case "initialize":
        return reply({
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "http-script", version: "1" },
        });
      case "tools/list":
        return reply({
          tools: [
            { name: "big", inputSchema: { type: "object" } },
            { name: "hi", inputSchema: { type: "object" } },
          ],
        });
      case "tools/call":
        return reply({
          content: [{ type: "text", text: msg.params.name === "big" ? "x".repeat(20e6) : "hi" }],
        });
    }
    return Response.json({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    headers,
    close: () => server.shutdown(),
  };
}

function ctx(env: Record<string, string> = {}) {
  return {
    cwd: "/",
    env: (n: string) => env[n],
    envNames: [],
    secretEnv: [],
    notice: () => {},
  };
}

Deno.test("a header with ${VAR} reaches the HTTP server with the variable's value", async () => {
  const http = scriptedHttp();
  const config = validateMcpServers({
    web: { url: http.url, headers: { Authorization: "Bearer ${SCV_TEST_TOKEN}" } },
  }).web!;
  const server = new McpServer("web", config);
  try {
    await server.start(ctx({ SCV_TEST_TOKEN: "t0k3n" }));
    assert.equal(server.status, "ready", server.error);
    assert.deepEqual(server.tools.map((t) => t.name), ["big", "hi"]);
    assert.ok(http.headers.length > 0);
    for (const h of http.headers) assert.equal(h.get("authorization"), "Bearer t0k3n");
  } finally {
    await server.stop();
    await http.close();
  }
});

Deno.test("an HTTP answer over the message bound fails the call saying so, and the next call reconnects", async () => {
  const http = scriptedHttp();
  const server = new McpServer("web", validateMcpServers({ web: { url: http.url } }).web!);
  try {
    await server.start(ctx());
    assert.equal(server.status, "ready", server.error);
    await assert.rejects(
      server.call("big", {}, AbortSignal.timeout(60000), 60000),
      /MCP server "web" was stopped: it sent a response of more than 8388608 bytes/,
    );
    // Like a crash: the next call connects again (once) and works.
    const r = await server.call("hi", {}, AbortSignal.timeout(60000), 60000);
    assert.deepEqual(r.content, [{ type: "text", text: "hi" }]);
  } finally {
    await server.stop();
    await http.close();
  }
});

Deno.test("a value read for ${VAR} never shows in a failure message, even inside the URL", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const config = validateMcpServers({
    web: { url: `http://127.0.0.1:${port}/mcp?key=\${SCV_TEST_KEY}`, startup_timeout_ms: 5000 },
  }).web!;
  const server = new McpServer("web", config);
  try {
    await server.start(ctx({ SCV_TEST_KEY: "sk-very-secret" }));
    assert.equal(server.status, "failed");
    assert.match(server.error!, /key=\[redacted\]/);
    assert.ok(!server.error!.includes("sk-very-secret"), server.error);
  } finally {
    await server.stop();
  }
});
