import { assertEquals } from "../support/assert.ts";
import { listFiles } from "../../cli/tui_command.ts";

Deno.test("the TUI's workspace index honours .gitignore and lists directories with a slash", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/src`);
    await Deno.mkdir(`${dir}/build`);
    await Deno.writeTextFile(`${dir}/.gitignore`, "build/\n");
    await Deno.writeTextFile(`${dir}/src/a.ts`, "");
    await Deno.writeTextFile(`${dir}/build/out.js`, "");
    assertEquals(await listFiles(dir, 100), {
      paths: [".gitignore", "src/", "src/a.ts"],
      truncated: false,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the TUI's workspace index stops at its bound and says it is truncated", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const n of ["a", "b", "c", "d"]) await Deno.writeTextFile(`${dir}/${n}`, "");
    assertEquals(await listFiles(dir, 3), { paths: ["a", "b", "c"], truncated: true });
    assertEquals((await listFiles(dir, 4)).truncated, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
