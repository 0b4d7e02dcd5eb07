/**
 * The MCP SDK is typed for `deno check`: its `./*` export maps types to `*.js.d.ts`, which does
 * not exist, so without the `@ts-types` hints server/mcp/ uses its classes would be `any`. Each
 * `@ts-expect-error` below fails the type check (and so `deno test`) the day a type goes `any`.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StdioTransport } from "../../../server/mcp/stdio_transport.ts";

Deno.test("the MCP SDK's classes are typed: a wrong argument is a type error", () => {
  const misuses = () => {
    // @ts-expect-error the transport takes a URL
    new StreamableHTTPClientTransport(42);
    // @ts-expect-error callTool takes the call's params
    void new Client({ name: "scv", version: "1" }).callTool(42);
    // @ts-expect-error a Transport is not a number
    const t: Transport = 5;
    return t;
  };
  const stdio: Transport = new StdioTransport({ command: "x", args: [], env: {}, cwd: "/" });
  assert.equal(typeof misuses, "function");
  assert.equal(typeof stdio.send, "function");
});
