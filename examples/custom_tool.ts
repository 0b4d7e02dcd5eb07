// A Peon server on stdin/stdout with one extra tool, next to the built-in ones.
import * as z from "zod";
import { builtinTools, defineTool, loadConfig, serve, ToolRegistry } from "../mod.ts";

const wordCount = defineTool({
  name: "word_count",
  description: "Count the words in a text.",
  schema: z.object({ text: z.string() }),
  risk: () => "read", // read-only: asks for approval only under approval_policy "always"
  summary: (args) => `Count words in ${args.text.length} characters`,
  run: (args) => {
    const words = args.text.split(/\s+/).filter(Boolean).length;
    return Promise.resolve({ success: true, output: `${words} words`, truncated: false });
  },
});

const tools = new ToolRegistry([...builtinTools(), wordCount]);
const config = loadConfig(); // the same sources as the CLI: files, env
Deno.exit(
  await serve({ readable: Deno.stdin.readable, writable: Deno.stdout.writable, config, tools }),
);
