/**
 * `signalGroup` reaches a whole process group, also where Deno itself may not signal
 * (`--allow-run=bash` without `Deno.kill`), the permissions scv runs with.
 */
import { assertEquals } from "../support/assert.ts";
import { aliveNow } from "../support/probes.ts";

const MODULE = new URL("../../server/process_group.ts", import.meta.url).href;

Deno.test("signalGroup kills a group and its grandchildren under --allow-run=bash alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The child leads a group holding a grandchild; only bash's kill builtin can reach them.
    const script = `${dir}/kill.ts`;
    await Deno.writeTextFile(
      script,
      `import { signalGroup } from "${MODULE}";
const child = new Deno.Command("bash", {
  args: ["-c", "sleep 31 & echo $!; wait"],
  detached: true,
  stdout: "piped",
}).spawn();
const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
const grandchild = Number((await reader.read()).value!.trim());
let refused = false;
try { Deno.kill(-child.pid, "SIGKILL"); } catch (e) { refused = e instanceof Deno.errors.NotCapable; }
await signalGroup(child.pid, "SIGKILL");
const status = await child.status;
console.log(JSON.stringify({ refused, signal: status.signal, grandchild }));
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--allow-read=${dir}`, "--allow-run=bash", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assertEquals([r.refused, r.signal], [true, "SIGKILL"], "Deno.kill was refused, bash did it");
    // A killed process may linger a moment as a zombie until it is reaped.
    const alive = () => aliveNow(r.grandchild);
    for (let i = 0; i < 40 && alive(); i++) await new Promise((ok) => setTimeout(ok, 50));
    assertEquals(alive(), false, `grandchild ${r.grandchild} survived`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
