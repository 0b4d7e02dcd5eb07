/**
 * End-to-end tests of the daily-work TUI in tmux against the real server: resuming with
 * `scv -c` and the picker, /compact, /model, a custom command, an @path completion, Ctrl+R and
 * an "always allow".
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { ask, E2E_OPTS as opts, EMPTY_COMPOSER, waitForComposer, withTui } from "./e2e_support.ts";

/** The messages of the provider request `i`, as role and text. */
function messages(body: unknown): Array<{ role: string; content: string }> {
  const list = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  return list.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  }));
}

Deno.test(
  "e2e: scv -c shows the earlier transcript and sends the earlier messages",
  opts,
  async () => {
    await withTui({
      script: [text("First answer: 42."), text("It was 42.")],
    }, async (s) => {
      await ask(s, "remember the number 42", "First answer: 42.");
      s.keys("C-d");
      await s.waitFor("tui-exit-status=0");
      await s.relaunch(["-c"]);
      const pane = await s.waitFor("Resumed session");
      assert(pane.includes("› remember the number 42"), pane);
      assert(pane.includes("First answer: 42."), pane);
      await ask(s, "what was the number?", "It was 42.");
      const sentNow = messages(s.mock.requests[1]!.body);
      assert(
        sentNow.some((m) => m.role === "user" && m.content === "remember the number 42"),
        JSON.stringify(sentNow),
      );
      assert(sentNow.some((m) => m.role === "assistant" && m.content === "First answer: 42."));
      assertEquals(sentNow.at(-1), { role: "user", content: "what was the number?" });
    });
  },
);

Deno.test(
  "e2e: scv --resume opens the picker and Enter resumes the chosen session",
  opts,
  async () => {
    await withTui({ script: [text("Noted."), text("Back again.")] }, async (s) => {
      await ask(s, "a session worth resuming", "Noted.");
      s.keys("C-d");
      await s.waitFor("tui-exit-status=0");
      await s.relaunch(["--resume"], false);
      const picker = await s.waitFor("Resume a session");
      assert(picker.includes("1 turn") && picker.includes("a session worth resuming"), picker);
      assert(picker.includes("1 of 1 session"), picker);
      s.keys("Enter");
      const pane = await s.waitFor("Resumed session");
      assert(pane.includes("› a session worth resuming"), pane);
      await ask(s, "go on", "Back again.");
      const sentNow = messages(s.mock.requests[1]!.body);
      assert(
        sentNow.some((m) => m.content === "a session worth resuming"),
        JSON.stringify(sentNow),
      );
    });
  },
);

Deno.test(
  "e2e: /compact compacts now and the next request carries the instructions",
  opts,
  async () => {
    await withTui({
      script: [text("One."), text("Two."), text("Three.")],
    }, async (s) => {
      await ask(s, "first question", "One.");
      await ask(s, "second question", "Two.");
      s.type("/compact keep the numbers");
      s.keys("Enter");
      await s.waitFor("Context compacted: 2 messages removed");
      await waitForComposer(s, [EMPTY_COMPOSER]);
      await ask(s, "third question", "Three.");
      const sentNow = messages(s.mock.requests[2]!.body);
      assert(sentNow.some((m) => m.content.includes("keep the numbers")), JSON.stringify(sentNow));
      assert(!sentNow.some((m) => m.content === "first question"), JSON.stringify(sentNow));
    });
  },
);

Deno.test(
  "e2e: /model lists the provider's models and /model NAME sets the next turn's",
  opts,
  async () => {
    await withTui({
      script: [text("Answered by the other model.")],
      models: ["gpt-4.1-mini", "other-model"],
    }, async (s) => {
      s.type("/model");
      s.keys("Enter");
      const list = await s.waitFor("other-model");
      assert(list.includes("* gpt-4.1-mini"), list);
      s.type("/model other-model");
      s.keys("Enter");
      await s.waitFor("Model: other-model for the next turns");
      await s.waitFor(/other-model · .*idle\s*$/m);
      await ask(s, "hello", "Answered by the other model.");
      assertEquals((s.mock.requests[0]!.body as { model: string }).model, "other-model");
    });
  },
);

Deno.test(
  "e2e: a custom command sends its prompt with the arguments and is in /help",
  opts,
  async () => {
    await withTui({
      script: [text("Reviewed.")],
      files: {
        ".scv/commands/review.md":
          "---\ndescription: Review a change\n---\nReview $ARGUMENTS carefully.",
      },
    }, async (s) => {
      s.type("/help");
      s.keys("Enter");
      await s.waitFor(/Custom:\s+\/review\s+Review a change/);
      await ask(s, "/review the parser", "Reviewed.");
      const sentNow = messages(s.mock.requests[0]!.body);
      assertEquals(sentNow.at(-1), { role: "user", content: "Review the parser carefully." });
    });
  },
);

Deno.test(
  "e2e: Tab completes an @path and the file's content reaches the provider",
  opts,
  async () => {
    await withTui({
      script: [text("It exports answer.")],
      files: {
        "src/answer_module.ts": "export const answer = 42;\n",
        "ignored/secret.ts": "x",
        ".gitignore": "ignored/\n",
      },
    }, async (s) => {
      s.type("what does @src/ans");
      s.keys("Tab");
      await waitForComposer(s, ["what does @src/answer_module.ts"]);
      s.type("export?");
      s.keys("Enter");
      await s.waitFor("It exports answer.");
      await s.waitFor("Attached @src/answer_module.ts");
      const last = messages(s.mock.requests[0]!.body).at(-1)!;
      assert(last.content.startsWith("what does @src/answer_module.ts export?"), last.content);
      assert(last.content.includes("export const answer = 42;"), last.content);
      // The gitignored directory is not offered.
      s.type("@ig");
      s.keys("Tab");
      await s.waitFor("No file of the workspace starts with ig");
    });
  },
);

Deno.test(
  "e2e: Ctrl+R finds an earlier prompt and Enter puts it back in the composer",
  opts,
  async () => {
    await withTui({ script: [text("A."), text("B."), text("A again.")] }, async (s) => {
      await ask(s, "alpha question", "A.");
      await ask(s, "beta question", "B.");
      s.keys("C-r");
      s.type("alp");
      await s.waitFor("search: alp_");
      await waitForComposer(s, ["alpha question"]);
      s.keys("Enter");
      await s.waitForGone("search: alp_");
      await waitForComposer(s, ["alpha question"]);
      s.keys("Enter");
      await s.waitFor("A again.");
      assertEquals(messages(s.mock.requests[2]!.body).at(-1)?.content, "alpha question");
    });
  },
);

Deno.test("e2e: an always-allow answers the second identical call only", opts, async () => {
  await withTui({
    script: [
      toolCalls([{ name: "bash", arguments: { command: "echo first-$((1+1))" } }]),
      toolCalls([{ name: "bash", arguments: { command: "echo first-$((1+1))" } }]),
      toolCalls([{ name: "bash", arguments: { command: "echo other" } }]),
      text("All done."),
    ],
  }, async (s) => {
    s.type("run things");
    s.keys("Enter");
    await s.waitFor("[a] always");
    s.type("a");
    await s.waitFor("Always allowing bash `echo first-$((1+1))` in this session");
    await s.waitFor("Allowed without asking (always allow bash `echo first-$((1+1))`)");
    // The third call is another command: it asks.
    const pane = await s.waitFor("Run shell command: echo other");
    assert(pane.includes("[y] approve"), pane);
    s.type("y");
    await s.waitFor("All done.");
    const history = s.capture(true);
    assertEquals(history.split("Allowed without asking").length - 1, 1, history);
  });
});

Deno.test(
  "e2e: reasoning streams dimmed as its last line and Ctrl+O shows all of it",
  opts,
  async () => {
    await withTui({
      script: [{
        kind: "stream",
        events: [
          {
            choices: [{
              index: 0,
              delta: { role: "assistant", reasoning_content: "Step one: read.\n" },
            }],
          },
          { choices: [{ index: 0, delta: { reasoning_content: "Step two: answer." } }] },
          { choices: [{ index: 0, delta: { content: "The answer is 7." } }] },
          { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        ],
      }],
    }, async (s) => {
      await ask(s, "think first", "The answer is 7.");
      const pane = s.capture();
      assert(pane.includes("✻ Step two: answer.  (Ctrl+O shows all)"), pane);
      assert(!pane.includes("Step one"), pane);
      s.keys("C-o");
      const all = await s.waitFor("Step one: read.");
      assert(all.includes("The answer is 7."), all);
    });
  },
);

Deno.test(
  "e2e: /new starts a fresh session and /resume goes back to the first one",
  opts,
  async () => {
    await withTui(
      { script: [text("Kiwi noted."), text("Fresh."), text("It was kiwi.")] },
      async (s) => {
        await ask(s, "the word is kiwi", "Kiwi noted.");
        s.type("/new");
        s.keys("Enter");
        await s.waitFor("New session");
        await ask(s, "something else", "Fresh.");
        s.type("/resume");
        s.keys("Enter");
        await s.waitFor("2 of 2 sessions");
        s.keys("Down"); // the newest first: the first session is the second row
        s.keys("Enter");
        const pane = await s.waitFor("Resumed session");
        assert(pane.includes("› the word is kiwi") && !pane.includes("› something else"), pane);
        await ask(s, "which word?", "It was kiwi.");
        const sentNow = messages(s.mock.requests[2]!.body);
        assert(sentNow.some((m) => m.content === "the word is kiwi"), JSON.stringify(sentNow));
        assert(!sentNow.some((m) => m.content === "something else"), JSON.stringify(sentNow));
      },
    );
  },
);
