/**
 * The process that does `atomicWrite`'s work (see atomic_write.ts for why a process at all): one
 * bash, or bash inside bwrap, per workspace, started at the first write and kept for the rest
 * of the run. A write then costs one exec, `mv`'s (the rename; bash's own `read` and `printf`
 * move the data), where a helper per write paid a whole process start,
 * bash's own start, `cat` and a `pwd` per directory on top.
 *
 * The helper holds the workspace as its working directory and as file descriptor 9, both taken
 * once it has asked the kernel (coreutils' `pwd -P`, i.e. `getcwd`) that it is where `root`
 * says. A write descends one component at a time (`cd -P -- ./name`) and after each step asks the kernel
 * whether the directory that many `..` above it is the held workspace (`[ ../.. -ef
 * /dev/fd/9 ]`: `stat` walks `..` from where the process really is, never a path string), so
 * a directory swapped for a symlink is caught as before, without a `pwd` process per step.
 * Only when that check fails does it run `pwd -P`, to say where it ended up. Back up, it walks
 * `root` again and ends unless that lands on the directory it holds.
 *
 * The wire, on the helper's stdin: a request is its field count and the fields, each ended by
 * a NUL (paths cannot hold one), then exactly the announced number of data bytes (for data
 * that holds a NUL byte, only after the helper's "go" reply). On its stdout (stderr joins it), a reply is whatever the tools printed, a NUL, the
 * status in decimal and a newline. The helper exits at the end of its stdin (scv gone), after a
 * failure that may have left data unread, and when it is retired.
 *
 * @module
 */
import { scvPath, SYSTEM_PATH } from "../core_env.ts";

/** How the helper runs: bash itself, or bash inside bwrap with only the workspace writable. */
export type HelperKind = "bash" | "bwrap";

/**
 * Statuses of a reply. 0 done (or, first, ready), 2 send the data, 3 outside (message: where),
 * 4 no workspace, 5 a parent not a directory, 6 the file is a directory, 7 a directory scv may
 * not create (message: its index), 8 anything else (message: the failing tool's words), 10 the
 * held workspace is no longer at `root` (a fresh helper may succeed), -1 the helper ended
 * (message: its stderr).
 */
export interface HelperReply {
  code: number;
  message: string;
}

const SCRIPT = String.raw`set -o noclobber
# New files get 0644 less the user's umask, as Deno's writeFile with mode 0o644 would.
umask go-w
root=$1
# coreutils' pwd asks the kernel (getcwd); bash's builtin re-walks the path string instead.
enable -n pwd
exec 2>&1
reply() { printf '%s\0%s\n' "$2" "$1"; }
where() {
  # ".": $(...) drops trailing newlines, and "/ws<newline>" must not pass for "/ws".
  here=$(pwd -P && echo .) || { reply 8 'cannot tell the current directory'; exit 0; }
  here=\${here%?.}
}
cd -P -- "$root" 2>/dev/null || { reply 4 ''; exit 0; }
where
case $here in "$root") ;; *) reply 3 "$here"; exit 0 ;; esac
exec 9<.
[ . -ef /dev/fd/9 ] || { reply 8 'no /dev/fd to check directories with'; exit 0; }
# Whether the directory $up levels above this one is the workspace held: stat walks ".."
# from where this process really is, never a path string.
inside() {
  [ "$up" -ef /dev/fd/9 ] && return 0
  where
  case $here in "$root" | "$root"/*) reply 10 "$here" ;; *) reply 3 "$here" ;; esac
  return 1
}
# One write, from the workspace down; every failure is a reply and a return.
write() {
  base=$1 tmp=$2 mode=$3 mkfrom=$4 mvflag=$5 len=$6 how=$7
  shift 7
  i=0
  for name do
    # "./" so that a directory named "-" is not $OLDPWD.
    if ! cd -P -- "./$name" 2>/dev/null; then
      if [ -e "$name" ] || [ -L "$name" ]; then
        if [ -d "$name" ]; then reply 8 'permission denied by the operating system'; else reply 5 ''; fi
        return
      fi
      [ "$i" -ge "$mkfrom" ] || { reply 7 "$i"; return; }
      inside || return
      # Made meanwhile by someone else, or a dangling symlink: the cd below decides.
      mkdir -- "$name" 2>/dev/null || [ -e "$name" ] || [ -L "$name" ] || mkdir -- "$name" ||
        { reply 8 ''; return; }
      cd -P -- "./$name" 2>/dev/null || { reply 5 ''; return; }
    fi
    up=$up/..
    inside || return
    i=$((i + 1))
  done
  if [ -d "$base" ] && ! [ -L "$base" ]; then reply 6 ''; return; fi
  made=$tmp
  if [ "$how" = read ]; then
    printf '%s' "$data" > "$tmp" || { reply 8 ''; return; }
  else
    reply 2 ''
    # A failed head may leave data unread: the stream is out of step, so the helper ends.
    head -c "$len" > "$tmp" || { reply 8 ''; exit 0; }
  fi
  if [ -n "$mode" ]; then chmod -- "$mode" "$tmp" || { reply 8 ''; return; }; fi
  mv -f "$mvflag" -- "$tmp" "$base" || { reply 8 ''; return; }
  made=
  reply 0 ''
}
# The temporary file of a write that failed or was interrupted goes.
gone() { [ -z "$made" ] || rm -f -- "$made"; made=; }
trap gone EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM
made=
reply 0 ''
while IFS= read -r -d '' n; do
  set --
  while [ "$#" -lt "$n" ]; do IFS= read -r -d '' field || exit 0; set -- "$@" "$field"; done
  data=
  if [ "$7" = read ]; then
    # One read(2) for the lot (bash reads a -N count in bulk); bash drops NUL bytes, so data
    # holding any is sent only on the helper's "go", to a head process.
    IFS= read -r -N "$6" data && [ "\${#data}" -eq "$6" ] || exit 0
  fi
  up=.
  write "$@"
  data=
  gone
  # Back to the workspace: a path walk, so it must land on the directory held, or the helper
  # ends (scv starts a fresh one, which checks where the workspace is now).
  if [ "$up" != . ]; then cd -P -- "$root" 2>/dev/null && [ . -ef /dev/fd/9 ] || exit 0; fi
done
`.replaceAll("\\${", "${"); // A template literal cannot hold a bare "${".

/** The longest message of a reply that is kept; the rest is read and dropped. */
const MAX_MESSAGE = 1000;
/** Helpers kept at once (one per workspace); starting one more retires the oldest. */
export const MAX_HELPERS = 4;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The command line that starts a helper of `kind` for `root`. */
function commandLine(kind: HelperKind, root: string): { command: string; args: string[] } {
  const argv = ["-c", SCRIPT, "scv-write", root];
  if (kind === "bash") return { command: "bash", args: argv };
  return {
    command: "bwrap",
    args: [
      ...["--ro-bind", "/", "/", "--bind", root, root, "--dev", "/dev"],
      ...["--unshare-net", "--die-with-parent", "--new-session", "--", "bash", ...argv],
    ],
  };
}

/** The identity of a directory, to notice a workspace replaced under the same path. */
async function identity(p: string): Promise<string> {
  try {
    const s = await Deno.stat(p);
    return `${s.dev}:${s.ino}`;
  } catch {
    return "";
  }
}

/** A started helper: its process, its pipes and what is left over of its stdout. */
class Helper {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdout: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);
  /** Set once the helper is gone or out of step: the next write starts another. */
  dead = false;
  /** The workspace's identity when the helper started. */
  readonly root: string;

  constructor(kind: HelperKind, root: string, rootId: string) {
    const { command, args } = commandLine(kind, root);
    this.root = rootId;
    this.#child = new Deno.Command(command, {
      args,
      cwd: "/",
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { PATH: scvPath(SYSTEM_PATH), LC_ALL: "C" },
      clearEnv: true,
      // Its own process group: a Ctrl-C at the terminal is scv's to handle, not the helper's.
      detached: true,
    }).spawn();
    this.#stdin = this.#child.stdin.getWriter();
    this.#stdout = this.#child.stdout.getReader();
    // Idle, the helper keeps no one waiting: scv may exit, and then its stdin ends.
    this.#child.unref();
    live.add(this.#child);
    this.#child.status.then(() => live.delete(this.#child), () => live.delete(this.#child));
  }

  /** The helper's first reply: ready (0), or why it cannot serve `root`. */
  async ready(): Promise<HelperReply> {
    this.#child.ref();
    try {
      return await this.#reply();
    } finally {
      this.#child.unref();
    }
  }

  /**
   * One write: sends `fields` with `data` behind them (or, for `head`, the data once the
   * helper asks for it) and resolves the reply; `delivered` says whether the request reached a
   * live helper (when not, nothing of it happened).
   */
  async write(fields: string[], data: Uint8Array): Promise<HelperReply & { delivered: boolean }> {
    this.#child.ref();
    try {
      const header = encoder.encode(
        [String(fields.length), ...fields].map((f) => f + "\0").join(""),
      );
      const inline = fields[6] === "read";
      const request = inline ? concat([header, data]) : header;
      if (!await this.#send(request)) return { ...await this.#ended(), delivered: false };
      let reply = await this.#reply();
      if (reply.code === 2 && !inline) {
        if (!await this.#send(data)) return { ...await this.#ended(), delivered: true };
        reply = await this.#reply();
        // A failure once the data was on its way may have left some of it unread.
        if (reply.code !== 0) this.dead = true;
      }
      return { ...reply, delivered: true };
    } finally {
      this.#child.unref();
    }
  }

  /** Ends the helper: its stdin closes, and it exits after the write it is doing. */
  retire(): void {
    this.dead = true;
    this.#stdin.close().catch(() => {});
  }

  async #send(bytes: Uint8Array): Promise<boolean> {
    try {
      await this.#stdin.write(bytes);
      return true;
    } catch {
      this.dead = true;
      return false;
    }
  }

  /** Reads one reply; a helper that ends first gives status -1 and its stderr. */
  async #reply(): Promise<HelperReply> {
    const kept: Uint8Array[] = [];
    let keptBytes = 0;
    let code: number | undefined;
    for (;;) {
      const nul = this.#buffer.indexOf(0);
      const end = nul < 0 ? -1 : this.#buffer.indexOf(10, nul);
      if (end >= 0) {
        this.#keep(kept, this.#buffer.subarray(0, nul), keptBytes);
        keptBytes += nul;
        code = Number(decoder.decode(this.#buffer.subarray(nul + 1, end)));
        this.#buffer = this.#buffer.slice(end + 1);
        break;
      }
      if (nul < 0 && this.#buffer.length > MAX_MESSAGE) {
        // Bounded: what is past the kept part of a message is dropped as it comes.
        keptBytes += this.#keep(kept, this.#buffer, keptBytes);
        this.#buffer = new Uint8Array(0);
      }
      const { value, done } = await this.#stdout.read().catch(() => ({
        value: undefined,
        done: true,
      }));
      if (done || !value) return await this.#ended();
      const joined = new Uint8Array(this.#buffer.length + value.length);
      joined.set(this.#buffer);
      joined.set(value, this.#buffer.length);
      this.#buffer = joined;
    }
    const message = decoder.decode(concat(kept)).trim();
    return { code: Number.isInteger(code) ? code : 8, message };
  }

  /** Adds what of `bytes` still fits the kept message; returns `bytes.length`. */
  #keep(kept: Uint8Array[], bytes: Uint8Array, keptBytes: number): number {
    const room = MAX_MESSAGE - keptBytes;
    if (room > 0) kept.push(bytes.slice(0, room));
    return bytes.length;
  }

  /** The helper ended (or its stdin broke): status -1, with what it said on stderr. */
  async #ended(): Promise<HelperReply> {
    this.dead = true;
    let said = "";
    try {
      const reader = this.#child.stderr.getReader();
      const parts: Uint8Array[] = [];
      let n = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (n < MAX_MESSAGE) parts.push(value.slice(0, MAX_MESSAGE - n));
        n += value.length;
      }
      said = decoder.decode(concat(parts)).trim();
    } catch {
      // Nothing more to say.
    }
    await this.#child.status.catch(() => {});
    return { code: -1, message: said };
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Every helper process alive, so an exit (`Deno.exit`) can end them at once. */
const live = new Set<Deno.ChildProcess>();
let unloadHooked = false;
function hookUnload(): void {
  if (unloadHooked) return;
  unloadHooked = true;
  // Sync on purpose: unload runs on Deno.exit, where nothing async completes. SIGTERM, not
  // SIGKILL: a write under way removes its temporary file on the way out.
  globalThis.addEventListener("unload", () => {
    for (const child of live) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
    }
  });
}

/** One workspace's helper slot: the helper, and the chain that keeps its writes in order. */
interface Slot {
  helper: Helper | undefined;
  tail: Promise<unknown>;
}
/** Slots by kind and workspace, oldest first (a Map keeps insertion order). */
const slots = new Map<string, Slot>();

/** The slot for `kind` and `root`, retiring the oldest helper past {@link MAX_HELPERS}. */
function slotFor(kind: HelperKind, root: string): Slot {
  const key = `${kind}\0${root}`;
  let slot = slots.get(key);
  if (slot) {
    slots.delete(key);
  } else {
    slot = { helper: undefined, tail: Promise.resolve() };
    while (slots.size >= MAX_HELPERS) {
      const [oldKey, old] = slots.entries().next().value!;
      slots.delete(oldKey);
      // After the writes already queued on it.
      old.tail = old.tail.then(() => old.helper?.retire());
    }
  }
  slots.set(key, slot);
  return slot;
}

/**
 * Runs one write through the helper of `kind` for the workspace `root`, starting the helper
 * when there is none yet (or the one there ended, or the workspace at `root` is no longer the
 * directory it holds). Writes to one workspace run one at a time, in call order. `fields` are
 * the script's `write` arguments: the file's name, the temporary name, the mode, the first
 * directory it may create, mv's no-directory flag, the data's length, how to take the data in
 * (`read`: bash's own `read`, for data without NUL bytes; `head`: a `head -c` process), then
 * the directories.
 * Throws only when the helper cannot be started at all (`Deno.errors.NotFound` and the like
 * from the spawn); everything else is a reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { helperWrite } from "./write_helper.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * const data = new TextEncoder().encode("hi");
 * const reply = await helperWrite("bash", root, ["a.txt", ".t.tmp", "", "0", "-T", "2", "read"], data);
 * assert.equal(reply.code, 0);
 * assert.equal(await Deno.readTextFile(`${root}/a.txt`), "hi");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function helperWrite(
  kind: HelperKind,
  root: string,
  fields: string[],
  data: Uint8Array,
): Promise<HelperReply> {
  const slot = slotFor(kind, root);
  const run = slot.tail.then(async () => {
    // Twice at most: a helper that ended, or holds a workspace since replaced, is replaced
    // once; a write a helper may have done is never repeated.
    for (let attempt = 0;; attempt++) {
      const rootId = await identity(root);
      let helper = slot.helper;
      if (helper && (helper.dead || helper.root !== rootId)) {
        helper.retire();
        helper = slot.helper = undefined;
      }
      if (!helper) {
        hookUnload();
        helper = new Helper(kind, root, rootId);
        const ready = await helper.ready();
        if (ready.code !== 0) {
          helper.retire();
          return ready;
        }
        slot.helper = helper;
      }
      const reply = await helper.write(fields, data);
      // Refused as moved, nothing changed; not delivered, nothing happened: both may be redone.
      const again = reply.code === 10 || (reply.code === -1 && !reply.delivered);
      if (reply.code === 10) helper.retire();
      if (!again || attempt > 0) return { code: reply.code, message: reply.message };
    }
  });
  slot.tail = run.catch(() => {});
  return run;
}
