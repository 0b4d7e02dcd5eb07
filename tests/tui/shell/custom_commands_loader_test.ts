import { assert, assertEquals } from "../../support/assert.ts";
import {
  commandDirs,
  loadCustomCommands,
  MAX_COMMAND_BYTES,
  MAX_COMMAND_FILES,
} from "../../../tui/shell/custom_commands_loader.ts";

Deno.test("custom commands come from the user's and the workspace's directories, the workspace's winning", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/user`);
    await Deno.mkdir(`${dir}/ws`);
    await Deno.writeTextFile(`${dir}/user/review.md`, "# User review\nReview $ARGUMENTS");
    await Deno.writeTextFile(`${dir}/user/fix.md`, "Fix it");
    await Deno.writeTextFile(`${dir}/ws/review.md`, "Project review");
    await Deno.writeTextFile(`${dir}/ws/notes.txt`, "not a command");
    const { commands, notices } = await loadCustomCommands([`${dir}/user`, `${dir}/ws`]);
    assertEquals(commands.map((c) => [c.name, c.description]), [
      ["fix", "Fix it"],
      ["review", "Project review"],
    ]);
    assertEquals(notices, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a command file one byte over the bound is left out with a notice", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/big.md`, "x".repeat(MAX_COMMAND_BYTES + 1));
    await Deno.writeTextFile(`${dir}/ok.md`, "x".repeat(MAX_COMMAND_BYTES));
    const { commands, notices } = await loadCustomCommands([dir]);
    assertEquals(commands.map((c) => c.name), ["ok"]);
    assert(notices[0]?.includes("big.md is over 64 KiB"), notices.join("|"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("at most MAX_COMMAND_FILES files of a directory are read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (let i = 0; i <= MAX_COMMAND_FILES; i++) {
      await Deno.writeTextFile(`${dir}/c${i}.md`, "x");
    }
    const { commands, notices } = await loadCustomCommands([dir]);
    assertEquals(commands.length, MAX_COMMAND_FILES);
    assert(notices.some((n) => n.startsWith(`Only the first ${MAX_COMMAND_FILES}`)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a file name that makes no command name is left out with a notice", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/two words.md`, "x");
    const { commands, notices } = await loadCustomCommands([dir, `${dir}/missing`]);
    assertEquals(commands, []);
    assert(notices[0]?.includes('letters, digits, "-" or "_"'), notices.join("|"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("commands are looked for under XDG_CONFIG_HOME, else ~/.config, and the workspace", () => {
  assertEquals(commandDirs((n) => ({ XDG_CONFIG_HOME: "/x", HOME: "/h" })[n], "/w"), [
    "/x/scv/commands",
    "/w/.scv/commands",
  ]);
  assertEquals(commandDirs((n) => ({ HOME: "/h" })[n], "/w"), [
    "/h/.config/scv/commands",
    "/w/.scv/commands",
  ]);
});
