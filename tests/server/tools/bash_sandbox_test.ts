/**
 * The bash tool inside the sandbox, in-process: a call cancelled at any moment, even while
 * bubblewrap is still setting up its namespaces, leaves no process of the call behind, also
 * under `--allow-run=bwrap` alone (no bash to run the process reaper directly).
 */
import assert from "node:assert/strict";
import { createBashTool } from "../../../server/tools/bash.ts";
import { openSandbox } from "../../../server/sandbox/mod.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { toolContext, withTempDir } from "./support.ts";
import { processesWith } from "../../support/probes.ts";
import { sandboxTest } from "../sandbox/support.ts";

async function gone(marker: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if ((await processesWith(marker)).length === 0) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

sandboxTest(
  "a sandboxed call cancelled at any point of its start leaves no process behind",
  async () => {
    const tool = createBashTool({ sandbox: await openSandbox({ ...DEFAULT_CONFIG }) });
    await withTempDir(async (dir) => {
      const marker = "sleep 4242.4";
      let sawOne = false;
      for (let i = 0; i < 40; i++) {
        const controller = new AbortController();
        const call = tool.run(
          { command: `${marker} & wait` },
          toolContext(dir, { signal: controller.signal, limits: { timeoutMs: 30_000 } }),
        );
        // From at once to well after the command started: some land inside bwrap's set-up.
        await new Promise((r) => setTimeout(r, i % 10));
        if ((await processesWith(marker)).length > 0) sawOne = true;
        controller.abort();
        const r = await call;
        assert.equal(r.success, false);
      }
      assert.ok(sawOne, "no call got as far as starting its command");
      assert.ok(await gone(marker), `left behind: ${(await processesWith(marker)).join("; ")}`);
    });
  },
);

sandboxTest(
  "under --allow-run=bwrap alone a cancelled sandboxed call leaves no process behind",
  async () => {
    await withTempDir(async (dir) => {
      const marker = "sleep 4243.3";
      const url = new URL("../../../server/tools/bash.ts", import.meta.url).href;
      const sb = new URL("../../../server/sandbox/mod.ts", import.meta.url).href;
      const cfg = new URL("../../../server/config.ts", import.meta.url).href;
      await Deno.writeTextFile(
        `${dir}/probe.ts`,
        `import { createBashTool } from ${JSON.stringify(url)};
import { openSandbox } from ${JSON.stringify(sb)};
import { DEFAULT_CONFIG } from ${JSON.stringify(cfg)};
const tool = createBashTool({ sandbox: await openSandbox({ ...DEFAULT_CONFIG }) });
for (let i = 0; i < 20; i++) {
  const c = new AbortController();
  const call = tool.run({ command: "${marker} & wait" }, {
    cwd: ${JSON.stringify(dir)}, signal: c.signal,
    limits: { maxOutputBytes: 1000, timeoutMs: 30000 }, secretEnv: [],
  });
  await new Promise((r) => setTimeout(r, i % 10));
  c.abort();
  await call;
}
console.log("done");
`,
      );
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          "--config",
          new URL("../../../deno.json", import.meta.url).pathname,
          `--allow-read`,
          "--allow-env",
          "--allow-run=bwrap",
          `${dir}/probe.ts`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(new TextDecoder().decode(out.stdout), "done\n");
      assert.ok(await gone(marker), `left behind: ${(await processesWith(marker)).join("; ")}`);
    });
  },
);
