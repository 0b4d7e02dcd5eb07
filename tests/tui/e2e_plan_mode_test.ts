/**
 * End-to-end: plan mode in the TUI, in tmux against the real server (docs/plan_mode.md). `/plan`
 * turns it on and the status line says so; a write and a bash call are refused without an
 * approval while a read runs; the turn's end offers to switch to auto and go on, which Enter on
 * the empty prompt takes; Shift+Tab cycles the policies.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { E2E_OPTS as opts, withTui } from "./e2e_support.ts";
import { GO_ON_PROMPT, PLAN_OFFER } from "../../tui/state/modes.ts";

/** The pane's last line: the status line. */
const statusOf = (pane: string) => pane.trimEnd().split("\n").at(-1)!;

Deno.test(
  "e2e: /plan refuses a write and a bash call, runs a read, and Enter then goes on in auto",
  opts,
  async () => {
    await withTui({
      files: { "notes.txt": "the bug is in parse()\n" },
      script: [
        toolCalls([
          { id: "w", name: "write_file", arguments: { path: "made.txt", content: "x" } },
          { id: "b", name: "bash", arguments: { command: "touch ran.txt" } },
          { id: "r", name: "read_file", arguments: { path: "notes.txt" } },
        ]),
        text("Plan: fix parse()."),
        toolCalls([{
          id: "w2",
          name: "write_file",
          arguments: { path: "made.txt", content: "x" },
        }]),
        text("Fixed."),
      ],
    }, async (s) => {
      s.type("/plan");
      s.keys("Enter");
      let pane = await s.waitFor("Approval policy: plan for the next turns");
      assertMatch(statusOf(pane), /^plan mode · /);
      s.type("find the bug");
      s.keys("Enter");
      pane = await s.waitFor(PLAN_OFFER);
      assert(!pane.includes("Approve "), pane);
      const all = s.capture(true);
      assertEquals(all.split("Plan mode is on").length - 1, 2, all);
      assert(all.includes("the bug is in parse()"), all);
      assertEquals(await Deno.stat(`${s.workspace}/made.txt`).then(() => true, () => false), false);
      assertEquals(await Deno.stat(`${s.workspace}/ran.txt`).then(() => true, () => false), false);
      // The system prompt said so.
      const system = s.mock.requests[0]!.body.messages[0]!.content as string;
      assertMatch(system, /Plan mode is on/);
      // One key: auto, and the plan is carried out.
      s.keys("Enter");
      pane = await s.waitFor("Fixed.");
      assert(pane.includes(`› ${GO_ON_PROMPT}`), pane);
      assert(pane.includes("Approval policy: auto for the next turns"), pane);
      assert(!statusOf(pane).includes("plan mode"), statusOf(pane));
      assertEquals(await Deno.readTextFile(`${s.workspace}/made.txt`), "x");
      assertEquals(s.mock.requests.at(-2)!.body.messages.at(-1)!.content, GO_ON_PROMPT);
    });
  },
);

Deno.test("e2e: Shift+Tab cycles the approval policy through plan mode", opts, async () => {
  await withTui({ script: [] }, async (s) => {
    s.keys("BTab");
    await s.waitFor("Approval policy: auto for the next turns");
    s.keys("BTab");
    const pane = await s.waitFor("Approval policy: plan for the next turns");
    assertMatch(statusOf(pane), /^plan mode · /);
    s.keys("BTab");
    await s.waitFor("Approval policy: always for the next turns");
    s.keys("BTab");
    const back = await s.waitFor("Approval policy: on-risk for the next turns");
    assert(!statusOf(back).includes("plan mode"), statusOf(back));
  });
});
