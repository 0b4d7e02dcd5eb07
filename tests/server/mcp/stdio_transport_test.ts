/** The MCP stdio transport (server/mcp/stdio_transport.ts) against small shell scripts. */
import assert from "node:assert/strict";
import { STDERR_TAIL_BYTES, StdioTransport } from "../../../server/mcp/stdio_transport.ts";
import { alive, eventually } from "../../support/mcp_peers.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

function shell(script: string, maxMessageBytes?: number) {
  const t = new StdioTransport({
    command: "sh",
    args: ["-c", script],
    env: { PATH },
    cwd: "/",
    ...(maxMessageBytes ? { maxMessageBytes } : {}),
  });
  const messages: unknown[] = [];
  let closed = false;
  t.onmessage = (m) => messages.push(m);
  t.onclose = () => closed = true;
  return { t, messages, closed: () => closed };
}

/** A JSON-RPC notification line of exactly `bytes` bytes (without its newline). */
function messageOf(bytes: number): string {
  const empty = JSON.stringify({ jsonrpc: "2.0", method: "m", params: { p: "" } });
  return JSON.stringify({
    jsonrpc: "2.0",
    method: "m",
    params: { p: "x".repeat(bytes - empty.length) },
  });
}

Deno.test("a message at the bound is delivered and one a byte over stops the server with the reason", async () => {
  const at = shell(`printf '%s\\n' '${messageOf(100)}'; sleep 30`, 100);
  await at.t.start();
  assert.ok(await eventually(() => at.messages.length === 1));
  await at.t.close();
  const over = shell(`printf '%s\\n' '${messageOf(101)}'; sleep 30`, 100);
  await over.t.start();
  assert.ok(await eventually(over.closed));
  assert.equal(over.messages.length, 0);
  assert.equal(over.t.closeReason, "it sent a message of more than 100 bytes");
});

Deno.test("lines that are not JSON-RPC are skipped and counted, the first kept for messages", async () => {
  const s = shell(`echo hello; echo '[1]'; echo '{"jsonrpc":"2.0","method":"ok"}'; sleep 30`);
  await s.t.start();
  assert.ok(await eventually(() => s.messages.length === 1));
  assert.equal(s.t.junkLines, 2);
  assert.equal(s.t.firstJunk, "hello");
  await s.t.close();
});

Deno.test("closing kills the server's whole process group, a background child included", async () => {
  const s = shell(`sleep 1000 & echo $! >&2; wait`);
  await s.t.start();
  assert.ok(await eventually(() => /^\d+$/.test(s.t.stderr.text())));
  const child = Number(s.t.stderr.text());
  assert.ok(alive(child), "the background child runs");
  assert.ok(alive(s.t.pid!), "the server runs");
  await s.t.close();
  assert.ok(s.closed());
  assert.ok(await eventually(() => !alive(child)), `child ${child} survived`);
  assert.ok(!alive(s.t.pid!));
});

Deno.test("the server's environment is exactly the one given", async () => {
  const s = shell(`env >&2; exit 0`);
  await s.t.start();
  await s.t.exited;
  const names = s.t.stderr.text().split("\n").map((l) => l.split("=")[0]);
  assert.ok(names.includes("PATH"));
  assert.ok(!names.includes("HOME"), names.join(","));
});

Deno.test("stderr keeps only its last 4 KiB", async () => {
  const s = shell(`head -c 10000 /dev/zero | tr '\\0' a >&2; echo END >&2; exit 0`);
  await s.t.start();
  await s.t.exited;
  assert.ok(await eventually(() => s.t.stderr.text().endsWith("END")));
  assert.ok(s.t.stderr.text().length <= STDERR_TAIL_BYTES);
  assert.ok(s.t.stderr.dropped > 0);
});

Deno.test("a command that does not exist is a clear start error", async () => {
  const t = new StdioTransport({ command: "/nonexistent/x", args: [], env: {}, cwd: "/" });
  await assert.rejects(t.start(), /cannot start "\/nonexistent\/x": command not found/);
});

Deno.test("a working directory that does not exist is named as the reason a server cannot start", async () => {
  const t = new StdioTransport({ command: "sh", args: [], env: {}, cwd: "/nonexistent/dir" });
  await assert.rejects(
    t.start(),
    /cannot start "sh": its working directory "\/nonexistent\/dir" is not a directory/,
  );
});
