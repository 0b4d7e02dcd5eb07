/**
 * `files.read`'s reader in-process: what a mentioned `@path` attaches, read by the server under
 * the workspace's rules — contained as read_file opens a file, never hidden or denied, text
 * only, and bounded by `max_bytes` and by the reply's frame.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  type MentionedFileOptions,
  readMentionedFile,
} from "../../../server/core/mentioned_file.ts";
import type { Rule } from "../../../server/core/rules/rule.ts";

async function workspace(): Promise<{ dir: string; ws: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "scv-mention-" }));
  const ws = `${dir}/ws`;
  await Deno.mkdir(`${ws}/src`, { recursive: true });
  await Deno.mkdir(`${ws}/.git`);
  await Deno.mkdir(`${ws}/secrets`);
  await Deno.mkdir(`${dir}/private`);
  await Deno.writeTextFile(`${ws}/src/a.ts`, "const a = 'é';\n");
  await Deno.writeTextFile(`${ws}/.git/config`, "[core]\n");
  await Deno.writeTextFile(`${ws}/.gitignore`, "*.log\nbuild/\n");
  await Deno.writeTextFile(`${ws}/debug.log`, "log line\n");
  await Deno.mkdir(`${ws}/build`);
  await Deno.writeTextFile(`${ws}/build/out.js`, "out\n");
  await Deno.writeTextFile(`${ws}/secrets/token.txt`, "sk-123\n");
  await Deno.writeTextFile(`${dir}/outside.txt`, "outside");
  await Deno.writeTextFile(`${dir}/private/key`, "key");
  await Deno.symlink(`${dir}/outside.txt`, `${ws}/link.txt`);
  await Deno.symlink(`${ws}/debug.log`, `${ws}/innocent.txt`);
  await Deno.writeFile(`${ws}/logo.bin`, new Uint8Array([0x89, 0x50, 0, 1, 2]));
  await Deno.writeFile(`${ws}/latin1.txt`, new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  return { dir, ws };
}

function options(ws: string, more: Partial<MentionedFileOptions> = {}): MentionedFileOptions {
  return { cwd: ws, rules: [], hidden: [], maxBytes: 64 * 1024, maxEncodedBytes: 1 << 20, ...more };
}

async function withWorkspace(fn: (w: { dir: string; ws: string }) => Promise<void>) {
  const w = await workspace();
  try {
    await fn(w);
  } finally {
    await Deno.remove(w.dir, { recursive: true });
  }
}

Deno.test("a mentioned file inside the workspace is read whole, with its size", async () => {
  await withWorkspace(async ({ ws }) => {
    assertEquals(await readMentionedFile("src/a.ts", options(ws)), {
      text: "const a = 'é';\n",
      size: 16,
      truncated: false,
    });
    assertEquals((await readMentionedFile(`${ws}/src/a.ts`, options(ws))).text, "const a = 'é';\n");
  });
});

Deno.test("a mention outside the workspace is refused, through .., an absolute path or a symlink", async () => {
  await withWorkspace(async ({ dir, ws }) => {
    for (const path of ["../outside.txt", `${dir}/outside.txt`, "link.txt", "/etc/hostname"]) {
      const got = await readMentionedFile(path, options(ws));
      assertEquals(got.refused?.reason, "outside", path);
      assert(got.refused?.message.includes("is outside the workspace"), got.refused?.message);
      assertEquals(got.text, undefined);
    }
  });
});

Deno.test("a binary file, or one that is not UTF-8, is refused", async () => {
  await withWorkspace(async ({ ws }) => {
    const bin = await readMentionedFile("logo.bin", options(ws));
    assertEquals(bin.refused, {
      reason: "binary",
      message: '"logo.bin" looks like a binary file (it contains NUL bytes)',
    });
    const latin = await readMentionedFile("latin1.txt", options(ws));
    assertEquals(latin.refused, {
      reason: "binary",
      message: '"latin1.txt" is not valid UTF-8 text',
    });
  });
});

Deno.test("a NUL past max_bytes but within the first 8 KiB still makes the file binary", async () => {
  await withWorkspace(async ({ ws }) => {
    const bytes = new Uint8Array(5000).fill(0x61);
    bytes[4000] = 0;
    await Deno.writeFile(`${ws}/late.dat`, bytes);
    const got = await readMentionedFile("late.dat", options(ws, { maxBytes: 100 }));
    assertEquals(got.refused?.reason, "binary");
  });
});

Deno.test("a file over max_bytes gives its head, cut at a character, and its whole size", async () => {
  await withWorkspace(async ({ ws }) => {
    await Deno.writeTextFile(`${ws}/big.txt`, "x".repeat(70_000));
    const big = await readMentionedFile("big.txt", options(ws, { maxBytes: 65_536 }));
    assertEquals([big.text?.length, big.size, big.truncated], [65_536, 70_000, true]);
    const exact = await readMentionedFile("big.txt", options(ws, { maxBytes: 70_000 }));
    assertEquals([exact.text?.length, exact.truncated], [70_000, false]);
    // 'é' is bytes 11 and 12: a head of 12 bytes ends before it.
    const cut = await readMentionedFile("src/a.ts", options(ws, { maxBytes: 12 }));
    assertEquals([cut.text, cut.size, cut.truncated], ["const a = '", 16, true]);
  });
});

Deno.test("text that would not fit the reply's frame is cut to fit and marked truncated", async () => {
  await withWorkspace(async ({ ws }) => {
    // Control characters take six bytes each as JSON: 1000 of them are 6002 bytes encoded.
    await Deno.writeTextFile(`${ws}/ctl.txt`, "\u0001".repeat(1000));
    const got = await readMentionedFile("ctl.txt", options(ws, { maxEncodedBytes: 3000 }));
    assert(got.text !== undefined && got.text.length > 0);
    assert(new TextEncoder().encode(JSON.stringify(got.text)).length <= 3000);
    assertEquals([got.size, got.truncated], [1000, true]);
  });
});

Deno.test("a file in .git or ignored by .gitignore (itself or a directory above it) is hidden", async () => {
  await withWorkspace(async ({ ws }) => {
    for (const path of [".git/config", "debug.log", "build/out.js", "innocent.txt"]) {
      const got = await readMentionedFile(path, options(ws));
      assertEquals(got.refused?.reason, "hidden", path);
      assert(got.refused?.message.includes(".gitignore"), got.refused?.message);
    }
    assertEquals((await readMentionedFile(".gitignore", options(ws))).refused, undefined);
  });
});

Deno.test("a file under a hidden root (sandbox_deny_read) is refused, naming what hides it", async () => {
  await withWorkspace(async ({ ws }) => {
    const hidden = [{ path: `${ws}/secrets`, by: 'by "sandbox_deny_read" (~/secrets)' }];
    const got = await readMentionedFile("secrets/token.txt", options(ws, { hidden }));
    assertEquals(got.refused, {
      reason: "hidden",
      message: '"secrets/token.txt" is hidden by "sandbox_deny_read" (~/secrets)',
    });
  });
});

Deno.test("a rule denying read_file on the path refuses the mention; an ask rule does not", async () => {
  await withWorkspace(async ({ ws }) => {
    const rule = (decision: Rule["decision"]): Rule => ({
      tool: "read_file",
      path: "secrets/**",
      decision,
      justification: "tokens stay on this machine",
      source: "workspace",
      index: 1,
    });
    const denied = await readMentionedFile(
      "secrets/token.txt",
      options(ws, { rules: [rule("deny")] }),
    );
    assertEquals(denied.refused?.reason, "denied");
    assert(denied.refused?.message.includes("secrets/**"), denied.refused?.message);
    assert(
      denied.refused?.message.includes("tokens stay on this machine"),
      denied.refused?.message,
    );
    assert(!JSON.stringify(denied).includes("sk-123"));
    const asked = await readMentionedFile(
      "secrets/token.txt",
      options(ws, { rules: [rule("ask")] }),
    );
    assertEquals(asked.text, "sk-123\n");
  });
});

Deno.test("a missing path and a directory are refused as such", async () => {
  await withWorkspace(async ({ ws }) => {
    assertEquals((await readMentionedFile("alice", options(ws))).refused, {
      reason: "missing",
      message: 'Cannot read "alice": no such file or directory',
    });
    assertEquals((await readMentionedFile("src", options(ws))).refused, {
      reason: "not_file",
      message: '"src" is not a regular file',
    });
  });
});
