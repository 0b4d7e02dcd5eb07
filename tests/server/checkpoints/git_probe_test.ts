/**
 * Whether checkpoints can run git, asked once per process (server/checkpoints/open.ts): an
 * executable git on PATH that scv may run is taken without a spawn; otherwise `git --version`
 * says why not. Each case runs in its own process, since the answer is kept per process.
 */
import { assertEquals } from "../../support/assert.ts";

const OPEN = new URL("../../../server/checkpoints/open.ts", import.meta.url).href;

/** `gitUnavailable()` in a fresh process with `PATH` and `--allow-run=<allowRun>`. */
async function probe(path: string, allowRun: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/probe.ts`;
    await Deno.writeTextFile(
      script,
      `import { gitUnavailable } from "${OPEN}";\nconsole.log(JSON.stringify(await gitUnavailable() ?? null));\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--no-config",
        "--allow-read",
        "--allow-env",
        `--allow-run=${allowRun}`,
        script,
      ],
      env: { PATH: path, NO_COLOR: "1" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A directory whose `git` records each run in `ran` and exits with `code`. */
async function fakeGit(code: number): Promise<{ dir: string; ran: string }> {
  const dir = await Deno.makeTempDir();
  const ran = `${dir}/ran`;
  await Deno.writeTextFile(`${dir}/git`, `#!/bin/sh\necho run >> ${ran}\nexit ${code}\n`, {
    mode: 0o755,
  });
  return { dir, ran };
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("an executable git on PATH that scv may run is taken without running it", async () => {
  // A git that would fail if it ran: the answer shows it was not run.
  const { dir, ran } = await fakeGit(3);
  try {
    assertEquals(await probe(`/nonexistent:${dir}`, `${dir}/git`), null);
    assertEquals(await exists(ran), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a git scv may not run is asked of git --version, which says why", async () => {
  const { dir, ran } = await fakeGit(0);
  try {
    assertEquals(await probe(dir, "bash"), "scv may not run git (add git to --allow-run)");
    assertEquals(await exists(ran), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a git that is not executable is asked of git --version; no git at all is not on PATH", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/git`, "not a program\n", { mode: 0o644 });
    assertEquals(await probe(dir, "git"), "git is not on PATH");
    assertEquals(await probe("/nonexistent", "git"), "git is not on PATH");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
