/**
 * An MCP server's tool as an scv tool: its JSON Schema passed through to the model and checked
 * (with ajv, the SDK's validator) before approval, risk `process` unless a trusted server
 * marks it read-only, the approval summary `MCP <server>: <tool>`, and its result as bounded
 * text with `isError` as a failure.
 *
 * @module
 */
import * as z from "zod";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { errorText } from "../error_text.ts";
import type { Tool, ToolResult } from "../tools/tool.ts";
import { resultText } from "./content.ts";
import { McpCallError, type McpServer, type McpToolInfo } from "./server.ts";

const validator = new AjvJsonSchemaValidator();

/** A schema that checks arguments against `inputSchema`, or why it cannot be compiled. */
function argumentsSchema(
  inputSchema: Record<string, unknown>,
): z.ZodType<Record<string, unknown>> | string {
  // ajv knows draft-07 and would refuse other `$schema` URIs; the keywords MCP servers use
  // mean the same in 2020-12.
  const { $schema: _, ...schema } = inputSchema;
  let check;
  try {
    check = validator.getValidator<Record<string, unknown>>(schema);
  } catch (e) {
    return `its inputSchema is not a valid JSON Schema: ${errorText(e)}`;
  }
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const r = check(value);
    if (!r.valid) ctx.addIssue({ code: "custom", message: r.errorMessage ?? "invalid" });
  });
}

/** An scv tool that calls `info` on `server`; a string when the tool cannot be offered. */
export function mcpTool(
  server: McpServer,
  info: McpToolInfo,
  name: string,
): (Tool<Record<string, unknown>> & { trusted: boolean }) | string {
  const schema = argumentsSchema(info.inputSchema);
  if (typeof schema === "string") return `tool ${JSON.stringify(info.name)} skipped: ${schema}`;
  const trusted = server.config.trust;
  const risk = trusted && info.readOnly ? "read" : "process";
  const tool: Tool<Record<string, unknown>> & { trusted: boolean } = {
    name,
    description: info.description || `${info.name} (MCP server ${server.name})`,
    schema,
    parameters: info.inputSchema,
    trusted,
    // Plan mode runs it only on the word of a server the user trusts.
    readOnly: trusted && info.readOnly,
    risk: () => risk,
    // Under `auto`, every tool of a server not marked `trust` asks, even a read-only one: the
    // annotation is the server's own claim.
    autoApproved: () => trusted,
    summary: () => `MCP ${server.name}: ${info.name}`,
    async run(args, ctx): Promise<ToolResult> {
      let result;
      try {
        result = await server.call(info.name, args, ctx.signal, ctx.limits.timeoutMs);
      } catch (e) {
        if (e instanceof McpCallError) {
          return { success: false, output: e.message, truncated: false };
        }
        throw e;
      }
      const { text, truncated } = resultText(result, ctx.limits.maxOutputBytes);
      return { success: result.isError !== true, output: text, truncated };
    },
  };
  if (server.config.tool_timeout_ms !== undefined) {
    return { ...tool, timeoutMs: server.config.tool_timeout_ms };
  }
  return tool;
}
