import { assert, assertEquals } from "../../support/assert.ts";
import { mentionReader } from "../../../tui/shell/mention_reader.ts";

async function workspace(): Promise<string> {
  const dir = Deno.realPathSync(await Deno.makeTempDir());
  await Deno.mkdir(`${dir}/ws/src`, { recursive: true });
  await Deno.writeTextFile(`${dir}/ws/src/a.ts`, "const a = 'é';\n");
  await Deno.writeTextFile(`${dir}/secret.txt`, "outside");
  await Deno.symlink(`${dir}/secret.txt`, `${dir}/ws/link.txt`);
  await Deno.writeFile(`${dir}/ws/bin.dat`, new Uint8Array([1, 0, 2]));
  return dir;
}

Deno.test("a mention reads a workspace file's head and its whole size", async () => {
  const dir = await workspace();
  try {
    const read = mentionReader(`${dir}/ws`);
    assertEquals(read("src/a.ts", 1000), { text: "const a = 'é';\n", size: 16 });
    assertEquals(read("src/a.ts", 5), { text: "const", size: 16 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a mention never reads outside the workspace, through .. or a symlink", async () => {
  const dir = await workspace();
  try {
    const read = mentionReader(`${dir}/ws`);
    assertEquals(read("../secret.txt", 100), undefined);
    assertEquals(read("link.txt", 100), undefined);
    assertEquals(read(`${dir}/secret.txt`, 100), undefined);
    assertEquals(read("src", 100), undefined, "a directory is not a file");
    assertEquals(read("missing.ts", 100), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a mention cut inside a character keeps only whole characters", async () => {
  const dir = await workspace();
  try {
    const r = mentionReader(`${dir}/ws`)("src/a.ts", 12); // 'é' is bytes 11-12
    assert(r && !r.text.includes("\uFFFD"), JSON.stringify(r));
    assertEquals(r?.text, "const a = '");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a binary file is reported as binary", async () => {
  const dir = await workspace();
  try {
    assertEquals(mentionReader(`${dir}/ws`)("bin.dat", 100)?.binary, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
