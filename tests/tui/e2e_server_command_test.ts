/**
 * End-to-end in tmux: the TUI under `--server-command`, a Peon server it spawns as a child and
 * talks to over pipes only. `/model` lists the models the server's provider offers (asked with
 * the server's key, which the TUI's process does not have), and an `@path` completes from the
 * server's file list and is attached as the server read it, under the server's rules.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text } from "../support/mock_openai.ts";
import { E2E_OPTS as opts, waitForComposer, withTui } from "./e2e_support.ts";

/** The last user message of a provider request's body. */
function lastUser(body: unknown): string {
  const list = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const last = list.findLast((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
}

Deno.test(
  "e2e: under --server-command, /model and @path completion and attachment are the server's",
  opts,
  async () => {
    await withTui({
      script: [text("The launch code is 7.")],
      models: ["gpt-4.1-mini", "server-side-model"],
      // Only the spawned server has this key; the TUI's own environment has another.
      serverCommandPrefix: "OPENAI_API_KEY=server-side-key ",
      files: {
        "docs/notes.md": "the launch code is 7\n",
        ".gitignore": "private/\n",
        "private/keys.txt": "sk-private-value\n",
      },
    }, async (s) => {
      s.type("/model");
      s.keys("Enter");
      const list = await s.waitFor("server-side-model");
      assert(list.includes("* gpt-4.1-mini"), list);
      // The server asks /models for the list (and, the mock being local, for its window too).
      assert(s.mock.modelListAuth.length > 0);
      assertEquals(new Set(s.mock.modelListAuth), new Set(["Bearer server-side-key"]));
      s.type("/model server-side-model");
      s.keys("Enter");
      await s.waitFor("Model: server-side-model for the next turns");

      s.type("what is in @docs/no");
      s.keys("Tab");
      await waitForComposer(s, ["what is in @docs/notes.md"]);
      // The server's list leaves the ignored directory out, and its reader refuses it.
      s.type("and @pri");
      s.keys("Tab");
      await s.waitFor("No file of the workspace starts with pri");
      s.type("vate/keys.txt?");
      s.keys("Enter");
      await s.waitFor("The launch code is 7.");
      await s.waitFor("Attached @docs/notes.md (21 bytes)");
      const pane = await s.waitFor("@private/keys.txt was not attached");
      assert(pane.includes("hidden"), pane);

      const request = s.mock.requests[0]!;
      const sent = lastUser(request.body);
      assert(sent.startsWith("what is in @docs/notes.md and @private/keys.txt?"), sent);
      assert(sent.includes('<file path="docs/notes.md">\nthe launch code is 7\n'), sent);
      assert(!sent.includes("sk-private-value"), sent);
      assertEquals(request.headers.get("authorization"), "Bearer server-side-key");
      assertEquals((request.body as { model: string }).model, "server-side-model");
    });
  },
);
