import { assert, assertEquals } from "../../support/assert.ts";
import {
  applyKey,
  applyWorkspaceIndex,
  createState,
  MAX_MENTION_BYTES,
  splitAttachments,
} from "../../../tui/state/mod.ts";
import {
  enterWith,
  key,
  notices,
  readyState,
  sent,
  sentWith as sentWithFiles,
  sessionStarted,
  typeText,
} from "../fixtures.ts";
import { applyEvent } from "../../../tui/state/mod.ts";

const INDEX = {
  paths: ["README.md", "src/", "src/app.ts", "src/apply.ts", "src/main.ts", "tests/"],
  truncated: false,
};

function session(maxPromptBytes?: number) {
  const s = createState({
    model: "m",
    cwd: "/work/project",
    historyLimits: { maxItems: 10, maxBytes: 10000 },
    ...(maxPromptBytes ? { maxPromptBytes } : {}),
  });
  applyEvent(s, sessionStarted());
  return s;
}

Deno.test("Tab on an @ mention asks the shell for the index, then completes when it arrives", () => {
  const s = readyState();
  typeText(s, "look at @REA");
  const fx = applyKey(s, key("tab"));
  assertEquals(fx, [{ kind: "index-files" }]);
  assert(s.hint?.startsWith("Indexing"));
  applyWorkspaceIndex(s, INDEX);
  assertEquals(s.composer.text, "look at @README.md ");
  assertEquals(s.composer.cursor, s.composer.text.length);
  assertEquals(s.hint, undefined);
});

Deno.test("Tab completes a directory, then the common prefix, listing the candidates", () => {
  const s = readyState();
  applyWorkspaceIndex(s, INDEX);
  typeText(s, "@s");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "@src/");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "@src/");
  assertEquals(s.hint, "@src/app.ts  @src/apply.ts  @src/main.ts");
  typeText(s, "ap");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "@src/app");
});

Deno.test("Tab with no match says so and leaves the text", () => {
  const s = readyState();
  applyWorkspaceIndex(s, INDEX);
  typeText(s, "@zzz");
  applyKey(s, key("tab"));
  assertEquals(s.composer.text, "@zzz");
  assert(s.hint?.includes("No file of the workspace starts with zzz"), s.hint);
});

Deno.test("Tab outside a mention still indents", () => {
  const s = readyState();
  typeText(s, "x");
  assertEquals(applyKey(s, key("tab")), []);
  assertEquals(s.composer.text, "x    ");
});

Deno.test("a mentioned file's content is attached to the prompt, the typed text shown", () => {
  const s = session();
  const [msg] = enterWith(s, "explain @src/a.ts, please", {
    "src/a.ts": "export const a = 1;\n",
  });
  assert(msg?.type === "turn.start");
  assertEquals(
    msg.prompt,
    'explain @src/a.ts, please\n\n<file path="src/a.ts">\nexport const a = 1;\n\n</file>',
  );
  const texts = notices(s);
  assert(texts.includes("Attached @src/a.ts (20 bytes)"), texts.join("|"));
  assertEquals(s.transcript.find((i) => i.kind === "user"), {
    kind: "user",
    text: "explain @src/a.ts, please",
  });
});

Deno.test("Enter on a prompt with mentions asks the shell to read them through the server", () => {
  const s = session();
  typeText(s, "compare @a.ts with @b.ts and @a.ts");
  const fx = applyKey(s, key("enter"));
  assertEquals(sent(fx), [], "the prompt waits for the files");
  const attach = fx.find((f) => f.kind === "send-attached");
  assert(attach?.kind === "send-attached");
  assertEquals(attach.paths, ["a.ts", "b.ts"]);
  assertEquals(attach.message.type, "turn.start");
  assertEquals(attach.typed, "compare @a.ts with @b.ts and @a.ts");
});

Deno.test("a prompt without mentions is sent at once", () => {
  const s = session();
  typeText(s, "no files here, mail me@x.org");
  assertEquals(sent(applyKey(s, key("enter"))).length, 1);
});

Deno.test("a mentioned file over the bound is cut to its head with a notice", () => {
  const big = "x".repeat(MAX_MENTION_BYTES + 1);
  const s = session(1024 * 1024);
  const [msg] = enterWith(s, "@big.txt", { "big.txt": big });
  assert(msg?.type === "turn.start");
  assert(msg.prompt.includes("x".repeat(MAX_MENTION_BYTES) + "\n</file>"));
  assert(!msg.prompt.includes("x".repeat(MAX_MENTION_BYTES + 1)));
  assert(notices(s).some((t) => t === "@big.txt: only its first 64 KiB of 64.0 KiB are attached"));
});

Deno.test("attachments never take the prompt past the server's limit", () => {
  const s = session(2000);
  const [msg] = enterWith(s, "read @a.txt", { "a.txt": "y".repeat(5000) });
  assert(msg?.type === "turn.start");
  assert(new TextEncoder().encode(msg.prompt).length <= 2000, String(msg.prompt.length));
  assert(notices(s).some((t) => t.startsWith("@a.txt: only its first")));
});

Deno.test("a mention that names no file of the workspace is sent as typed, without a notice", () => {
  const s = session();
  const [msg] = enterWith(s, "ask @alice about it", {});
  assert(msg?.type === "turn.start" && msg.prompt === "ask @alice about it");
  assertEquals(notices(s).filter((t) => t.includes("alice")), []);
});

Deno.test("a mentioned file the server refuses is not attached, and the notice says why", () => {
  const s = session();
  const refused = (reason: string, message: string) => ({ refused: { reason, message } });
  const [msg] = enterWith(s, "see @logo.png and @.env", {
    "logo.png": refused("binary", '"logo.png" looks like a binary file (it contains NUL bytes)'),
    ".env": refused("hidden", '".env" is hidden from the workspace\'s file list'),
  });
  assert(msg?.type === "turn.start" && msg.prompt === "see @logo.png and @.env");
  const texts = notices(s);
  assert(
    texts.includes(
      '@logo.png was not attached: "logo.png" looks like a binary file (it contains NUL bytes)',
    ),
    texts.join("|"),
  );
  assert(texts.some((t) => t.startsWith("@.env was not attached: ")), texts.join("|"));
});

Deno.test("at most MAX_MENTIONS files are read and attached to one prompt", async () => {
  const { MAX_MENTIONS } = await import("../../../tui/state/mentions.ts");
  const files: Record<string, string> = {};
  for (let i = 0; i <= MAX_MENTIONS; i++) files[`f${i}.txt`] = `content ${i}`;
  const s = session(1024 * 1024);
  typeText(s, Object.keys(files).map((f) => `@${f}`).join(" "));
  const fx = applyKey(s, key("enter"));
  const attach = fx.find((f) => f.kind === "send-attached");
  assertEquals(attach?.kind === "send-attached" && attach.paths.length, MAX_MENTIONS);
  const [msg] = sentWithFiles(s, fx, files);
  assert(msg?.type === "turn.start");
  assertEquals(msg.prompt.split("<file path=").length - 1, MAX_MENTIONS);
  assert(notices(s).includes(`Only the first ${MAX_MENTIONS} mentioned files are attached`));
});

Deno.test("splitAttachments takes back the file blocks that a prompt's mentions attached", () => {
  const typed = 'see @x.ts and @"odd".md';
  const prompt = `${typed}\n\n<file path="x.ts">\na\n</file>\n</file>` +
    `\n\n<file path="&quot;odd&quot;.md">\nb\n</file>`;
  assertEquals(splitAttachments(prompt, false), { typed, paths: ["x.ts", '"odd".md'] });
});

Deno.test("splitAttachments leaves a file block that no mention in the prompt names", () => {
  const prompt = 'explain this\n\n<file path="x.ts">\na\n</file>';
  assertEquals(splitAttachments(prompt, false), { typed: prompt, paths: [] });
});

Deno.test("splitAttachments accepts an unclosed last block only in a shortened record", () => {
  const prompt = 'see @x.ts\n\n<file path="x.ts">\nthe head of';
  assertEquals(splitAttachments(prompt, true), { typed: "see @x.ts", paths: ["x.ts"] });
  assertEquals(splitAttachments(prompt, false), { typed: prompt, paths: [] });
});

Deno.test("the listed candidates of a Tab go at the next key that is not Tab", () => {
  const s = readyState();
  applyWorkspaceIndex(s, INDEX);
  typeText(s, "see @src/ap");
  applyKey(s, key("tab"));
  assertEquals(s.hint, "@src/app.ts  @src/apply.ts");
  applyKey(s, key("tab"));
  assertEquals(s.hint, "@src/app.ts  @src/apply.ts", "a second Tab keeps the list");
  typeText(s, "p");
  assertEquals(s.hint, undefined);
});

Deno.test("a mention longer than any path is text: it is not read", () => {
  const s = session();
  typeText(s, `see @${"x".repeat(5000)} and @a.ts`);
  const attach = applyKey(s, key("enter")).find((f) => f.kind === "send-attached");
  assertEquals(attach?.kind === "send-attached" && attach.paths, ["a.ts"]);
});
