/** The workspace a session names, for both front ends (server/workspace_dir.ts). */
import { assertEquals, assertMatch } from "../support/assert.ts";
import { workspaceDir } from "../../server/workspace_dir.ts";

Deno.test("a session's workspace is made canonical", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scv-ws-" });
  try {
    assertEquals(await workspaceDir(`${dir}/.`), { ok: true, path: await Deno.realPath(dir) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a relative, missing or non-directory workspace is refused saying which", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scv-ws-" });
  try {
    await Deno.writeTextFile(`${dir}/file`, "x");
    const relative = await workspaceDir("rel/dir");
    const missing = await workspaceDir(`${dir}/nope`);
    const file = await workspaceDir(`${dir}/file`);
    assertEquals([relative.ok, missing.ok, file.ok], [false, false, false]);
    assertMatch(
      !relative.ok ? relative.message : "",
      /^cwd must be an absolute path, got "rel\/dir"$/,
    );
    assertMatch(!missing.ok ? missing.message : "", /^cwd does not exist: /);
    assertMatch(!file.ok ? file.message : "", /^cwd is not a directory: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
