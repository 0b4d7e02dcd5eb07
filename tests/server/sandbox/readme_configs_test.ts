/**
 * The README's sandbox configs for a Node and a Python project are valid and work: each is loaded
 * as a config file and runs its toolchain in the sandbox through the real server under a scoped
 * `--allow-read`, where `HOME` itself is not shown.
 */
import { SCV_DIR } from "../../support/locked_down.ts";
import assert from "node:assert/strict";
import { parseJsonc } from "../../../server/jsonc.ts";
import { type Config, validateConfigObject } from "../../../server/config.ts";
import { hostDir, sandboxTest, withBashServer } from "./support.ts";

const README = new URL("../../../README.md", import.meta.url);
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

/** The sandbox section's jsonc blocks, by their first comment line's first two words. */
function readmeConfigs(): Map<string, Partial<Config>> {
  const text = Deno.readTextFileSync(README);
  const start = text.indexOf("## Sandbox: where `bash` runs");
  const section = text.slice(start, text.indexOf("\n## ", start + 1));
  const out = new Map<string, Partial<Config>>();
  for (const m of section.matchAll(/```jsonc\n\/\/ (\S+ \S+).*\n([\s\S]*?)```/g)) {
    out.set(m[1]!, validateConfigObject(parseJsonc(m[2]!), `README ${m[1]}`));
  }
  return out;
}

/** `deno task server`'s flags with reads and writes scoped to these paths. */
function scoped(read: string[], write: string[]): string[] {
  return [
    "--no-prompt",
    `--allow-read=${[SCV_DIR, ...read].join(",")}`,
    `--allow-write=${write.join(",")}`,
    "--allow-env",
    "--allow-net",
    "--allow-run=bash,bwrap",
  ];
}

Deno.test("the README's sandbox section has a Node and a Python project config, both valid", () => {
  const configs = readmeConfigs();
  assert.deepEqual([...configs.keys()], ["Node project", "Python project"]);
});

sandboxTest(
  "the README's Node config runs node and npm with npm's cache writable and HOME hidden",
  async () => {
    const config = readmeConfigs().get("Node project")!;
    const home = await hostDir("scv-sbx-home-");
    const workspace = await hostDir("scv-sbx-ws-");
    try {
      await Deno.mkdir(`${home}/.npm`);
      await Deno.writeTextFile(`${home}/.profile`, "HIDDEN-PROFILE\n");
      await withBashServer(
        "node -e 'console.log(6 * 7)' && npm --version && npm config get cache && " +
          "touch ~/.npm/ok && (cat ~/.profile || echo profile-hidden)",
        {
          config,
          env: { HOME: home, DENO_DIR },
          workspace,
          denoFlags: scoped([workspace, "/tmp", `${home}/.npm`], [
            workspace,
            "/tmp",
            `${home}/.npm`,
          ]),
        },
        ({ completed }) => {
          assert.equal(completed.success, true, completed.output);
          assert.match(completed.output, /^42$/m);
          assert.match(completed.output, /^\d+\.\d+\.\d+$/m);
          assert.match(completed.output, /profile-hidden/);
          assert.ok(!completed.output.includes("HIDDEN-PROFILE"));
        },
      );
      assert.ok((await Deno.stat(`${home}/.npm/ok`)).isFile, "npm's cache was writable");
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(workspace, { recursive: true });
    }
  },
);

sandboxTest(
  "the README's Python config runs python (from pyenv when installed) with HOME hidden",
  async () => {
    const config = readmeConfigs().get("Python project")!;
    const workspace = await hostDir("scv-sbx-ws-");
    try {
      await withBashServer(
        "python3 -c 'print(6 * 7)' && (ls -A ~ | wc -l)",
        {
          config,
          workspace,
          denoFlags: scoped([workspace, "/tmp"], [workspace, "/tmp"]),
        },
        ({ completed }) => {
          assert.equal(completed.success, true, completed.output);
          assert.match(completed.output, /^42$/m);
          // HOME shows at most the toolchain roots bound under it, never its own files.
          const shown = Number(
            /^(\d+)$/m.exec(completed.output.split("\n").slice(1).join("\n"))?.[1],
          );
          assert.ok(shown <= 2, completed.output);
        },
      );
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
);
