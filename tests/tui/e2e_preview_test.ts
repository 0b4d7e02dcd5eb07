/**
 * End-to-end in tmux: the approval box of an edit shows the diff the call would make before it
 * runs, with its choices on screen; a long diff scrolls with PgUp/PgDn while the choices stay.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { text, toolCalls } from "../support/mock_openai.ts";
import { E2E_OPTS as opts, withTui } from "./e2e_support.ts";

Deno.test(
  "e2e: an edit's approval box shows its diff and the choices, and y runs it",
  opts,
  async () => {
    await withTui({
      script: [
        toolCalls([{
          id: "e1",
          name: "edit_file",
          arguments: { path: "notes.txt", old_string: "two", new_string: "TWO" },
        }]),
        text("Edited the notes."),
      ],
      files: { "notes.txt": "one\ntwo\nthree\n" },
    }, async (s) => {
      s.type("shout the second line");
      s.keys("Enter");
      const box = await s.waitFor("Approve edit_file?");
      for (const row of ["Edit file: notes.txt", "@@ -1,3 +1,3 @@", "-two", "+TWO", " three"]) {
        assert(box.includes(row), `${row} missing from:\n${box}`);
      }
      assert(/\[y\] approve\s+\[n\] deny\s+\[a\] always/.test(box), box);
      // Not yet run: the diff is what the call would do.
      assertEquals(await Deno.readTextFile(`${s.workspace}/notes.txt`), "one\ntwo\nthree\n");
      s.type("y");
      await s.waitFor("Edited the notes.");
      assertEquals(await Deno.readTextFile(`${s.workspace}/notes.txt`), "one\nTWO\nthree\n");
    });
  },
);

Deno.test(
  "e2e: a long diff in the approval box scrolls with PgDn, the choices always visible",
  opts,
  async () => {
    const content = Array.from({ length: 60 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
    await withTui({
      height: 24,
      script: [
        toolCalls([{ id: "w1", name: "write_file", arguments: { path: "long.txt", content } }]),
        text("Wrote the long file."),
      ],
    }, async (s) => {
      s.type("write the long file");
      s.keys("Enter");
      const first = await s.waitFor(/lines 1-\d+ of 61 · PgUp\/PgDn scroll/);
      assert(first.includes("+row 1\n") || first.includes("+row 1 "), first);
      assert(!first.includes("+row 60"), first);
      assert(first.includes("[y] approve"), first);
      s.keys("PageDown");
      const scrolled = await s.waitFor(/lines 9-\d+ of 61/);
      assert(scrolled.includes("+row 9"), scrolled);
      assert(!/\+row 1\s*$/m.test(scrolled), scrolled);
      assert(scrolled.includes("[y] approve") && scrolled.includes("[n] deny"), scrolled);
      // Far past the end, the window stays full and ends on the last line.
      for (let i = 0; i < 10; i++) s.keys("PageDown");
      const end = await s.waitFor(/lines \d+-61 of 61/);
      assert(end.includes("+row 60"), end);
      assert(end.includes("[y] approve"), end);
      s.type("n");
      await s.waitFor("Wrote the long file.");
      assert(!(await Deno.stat(`${s.workspace}/long.txt`).then(() => true, () => false)));
    });
  },
);
