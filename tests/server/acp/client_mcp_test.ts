import { assert, assertEquals } from "../../support/assert.ts";
import { clientMcpServers, coreOnlyEnv, serverName } from "../../../server/acp/client_mcp.ts";

Deno.test("a client server name becomes a tool-safe name of at most 32 characters", () => {
  assertEquals(serverName("Files (work)", new Set()), "Files__work_");
  assertEquals(serverName("x".repeat(40), new Set()).length, 32);
  assertEquals(serverName("", new Set()), "client");
});

Deno.test("a client server named like a configured one, or like another, gets a suffix", () => {
  const r = clientMcpServers([
    { name: "fs", command: "/bin/a", args: [], env: [] },
    { name: "fs", command: "/bin/b", args: [], env: [] },
  ], new Set(["fs"]));
  assert(r.ok);
  assertEquals(Object.keys(r.servers), ["fs-2", "fs-3"]);
});

Deno.test("client HTTP servers keep their headers; stdio ones their env", () => {
  const r = clientMcpServers([
    {
      type: "http",
      name: "h",
      url: "https://mcp.example/mcp",
      headers: [{ name: "X-A", value: "1" }],
    },
    { name: "s", command: "/bin/s", args: ["--x"], env: [{ name: "K", value: "v" }] },
  ], new Set());
  assert(r.ok);
  assertEquals((r.servers.h as { headers: Record<string, string> }).headers, { "X-A": "1" });
  assertEquals((r.servers.s as { env: Record<string, string>; args: string[] }).env, { K: "v" });
  assertEquals(r.servers.s!.trust, false);
});

Deno.test("more client servers than a config may name are refused", () => {
  const many = Array.from(
    { length: 33 },
    (_, i) => ({ name: `s${i}`, command: "/bin/s", args: [], env: [] }),
  );
  const r = clientMcpServers(many, new Set());
  assert(!r.ok && r.message.includes("at most 32"));
});

Deno.test("a client server's ${VAR} may name only the core variables", () => {
  const scv: Record<string, string> = { HOME: "/h", LC_ALL: "C", OPENAI_API_KEY: "sk" };
  const env = coreOnlyEnv((n) => scv[n]);
  assertEquals([env("HOME"), env("LC_ALL"), env("OPENAI_API_KEY")], ["/h", "C", undefined]);
});
