/**
 * A directory tree as data, byte for byte: every entry's kind, permission bits, content (files)
 * or target (symlinks), for comparing a workspace before and after a rewind.
 *
 * @module
 */

/** One entry: `d 755`, `f 644 <base64>`, `l -> target`. */
export type TreeImage = Record<string, string>;

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** The tree under `dir`, leaving out top-level names in `skip`. */
export async function treeImage(dir: string, skip: readonly string[] = []): Promise<TreeImage> {
  const out: TreeImage = {};
  const walk = async (rel: string) => {
    const entries = [];
    for await (const e of Deno.readDir(rel === "" ? dir : `${dir}/${rel}`)) entries.push(e.name);
    for (const name of entries.sort()) {
      const r = rel === "" ? name : `${rel}/${name}`;
      if (rel === "" && skip.includes(name)) continue;
      const p = `${dir}/${r}`;
      const st = await Deno.lstat(p);
      const mode = ((st.mode ?? 0) & 0o7777).toString(8);
      if (st.isSymlink) out[r] = `l -> ${await Deno.readLink(p)}`;
      else if (st.isDirectory) {
        out[r] = `d ${mode}`;
        await walk(r);
      } else out[r] = `f ${mode} ${b64(await Deno.readFile(p))}`;
    }
  };
  await walk("");
  return out;
}

/** Runs a command in `cwd`, failing on a non-zero exit; returns stdout. */
export async function sh(cwd: string, script: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${script} failed: ${new TextDecoder().decode(out.stderr)}${text}`);
  }
  return text;
}
