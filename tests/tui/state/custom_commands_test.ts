import { assert, assertEquals } from "../../support/assert.ts";
import { applyEvent, createState, type CustomCommand, helpText } from "../../../tui/state/mod.ts";
import { enter, notices, sessionStarted } from "../fixtures.ts";

const review: CustomCommand = {
  name: "review",
  description: "Review the staged change",
  body: "Review the staged change. Focus on $ARGUMENTS.\n",
  source: "/home/u/.config/scv/commands/review.md",
};
const plainCmd: CustomCommand = {
  name: "tidy-up",
  description: "Tidy",
  body: "Tidy the code.",
  source: "/w/.scv/commands/tidy-up.md",
};

function withCommands(commands: CustomCommand[], maxPromptBytes?: number) {
  const s = createState({
    model: "m",
    cwd: "/w",
    historyLimits: { maxItems: 10, maxBytes: 1000 },
    customCommands: commands,
    ...(maxPromptBytes ? { maxPromptBytes } : {}),
  });
  applyEvent(s, sessionStarted());
  return s;
}

Deno.test("a custom command becomes its prompt with $ARGUMENTS replaced", () => {
  const s = withCommands([review]);
  const [msg] = enter(s, "/review error handling");
  assert(msg?.type === "turn.start");
  assertEquals(msg.prompt, "Review the staged change. Focus on error handling.");
  assertEquals(s.history.entries.at(-1), "/review error handling", "history keeps what was typed");
});

Deno.test("a custom command's name may hold digits, dashes and any case", () => {
  const s = withCommands([plainCmd]);
  const [msg] = enter(s, "/Tidy-Up also the tests");
  assert(msg?.type === "turn.start");
  assertEquals(msg.prompt, "Tidy the code.\n\nalso the tests");
});

Deno.test("/help lists the custom commands after the built-ins", () => {
  const s = withCommands([review, plainCmd]);
  const text = helpText(s);
  const lines = text.split("\n");
  assert(lines.includes("Custom:   /review                  Review the staged change"), text);
  assert(lines.includes("          /tidy-up                 Tidy"), text);
});

Deno.test("an unknown command is still an error, not a prompt", () => {
  const s = withCommands([review]);
  assertEquals(enter(s, "/revu"), []);
  assert(notices(s).some((t) => t.startsWith("Unknown command /revu")));
});

Deno.test("a custom command whose prompt is over the limit is not sent and stays typed", () => {
  const big = { ...review, body: "x".repeat(3000) };
  const s = withCommands([big], 1000);
  assertEquals(enter(s, "/review"), []);
  assert(notices(s).some((t) => t.startsWith("/review makes a prompt of 2.9 KiB")));
  assertEquals(s.composer.text, "/review");
  assertEquals(s.turn, undefined);
});

Deno.test("a misspelt command followed by words is an error kept in the composer, not a prompt", () => {
  const s = withCommands([review]);
  assertEquals(enter(s, "/reveiw src/main.ts"), []);
  assert(notices(s).some((t) => t.startsWith("Unknown command /reveiw")));
  assertEquals(s.composer.text, "/reveiw src/main.ts");
  assertEquals(s.turn, undefined);
});

Deno.test("a prompt starting with a path of several segments or a file name is still a prompt", () => {
  for (const prompt of ["/etc/hosts looks wrong", "/README.md is stale"]) {
    const s = withCommands([review]);
    const [msg] = enter(s, prompt);
    assert(msg?.type === "turn.start" && msg.prompt === prompt, JSON.stringify(msg));
  }
});
