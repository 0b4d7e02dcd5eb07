/**
 * `scv exec`: one turn without a terminal, against an in-process server. Assistant text streams
 * to stdout, tool activity to stderr; `--json` writes the Peon events as NDJSON instead.
 * Nobody can answer an approval here, so calls that need one are denied with a hint.
 * `--continue` / `--session ID` add the turn to a recorded session; the session id is printed on
 * stderr either way.
 *
 * @module
 */
import { errorText } from "../server/error_text.ts";
import type { ExecOptions } from "./command_line.ts";
import { loadConfigOrReport } from "../server/config.ts";
import { PeonClient, PeonRequestError } from "../protocol/client.ts";
import type { ImageAttachment, ServerEvent } from "../protocol/schema.ts";
import { execFrameLimit, readExecImages } from "./exec_images.ts";
import { planText } from "../protocol/plan_text.ts";
import { serve } from "../server/peon/serve.ts";
import { after, type Timer } from "../server/timer.ts";

/** Exit statuses of `scv exec`. */
export const EXEC_EXIT = { completed: 0, failed: 1, usage: 2, cancelled: 130 } as const;

const encoder = new TextEncoder();

async function readStdinPrompt(maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of Deno.stdin.readable) {
    total += chunk.length;
    if (total > maxBytes) {
      throw new RangeError(`the prompt on stdin is over max_prompt_bytes (${maxBytes})`);
    }
    chunks.push(chunk);
  }
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

/** Where exec writes; injectable so the library can embed it. */
export interface ExecIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Writes all of `text`, or gives up quietly: a closed terminal (SIGHUP) must not stop cleanup. */
function writeAll(out: typeof Deno.stdout, text: string): void {
  try {
    const bytes = encoder.encode(text);
    for (let off = 0; off < bytes.length;) off += out.writeSync(bytes.subarray(off));
  } catch {
    // The reader is gone.
  }
}

const defaultIO: ExecIO = {
  stdout: (t) => writeAll(Deno.stdout, t),
  stderr: (t) => writeAll(Deno.stderr, t),
};

/** The signals that end `scv exec` the way a first Ctrl+C does: the turn is cancelled. */
const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** How long stdout must have been quiet for a text to go out at once rather than batched. */
export const QUIET_MS = 10;

/**
 * Stdout coalesced per event-loop task: a flood of deltas costs one write per batch instead of
 * one per delta. A text after {@link QUIET_MS} of quiet (the answer's first delta, say) goes out
 * at once: waiting a task for more would only delay what the user sees first. Stderr goes out at
 * once, after what stdout holds, so their order is kept. `now` is the clock, in milliseconds.
 */
export function coalesced(
  io: ExecIO,
  now: () => number = () => performance.now(),
): ExecIO & { flush: () => void } {
  let pending = "";
  let timer: Timer | undefined;
  let lastWrite = -Infinity;
  const flush = () => {
    timer?.cancel();
    timer = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    lastWrite = now();
    io.stdout(text);
  };
  return {
    stdout: (text) => {
      pending += text;
      // One batch stays well under a pipe's buffer, so no write is ever huge.
      if (pending.length >= 64 * 1024) flush();
      else if (timer === undefined && now() - lastWrite >= QUIET_MS) flush();
      else timer ??= after(0, flush);
    },
    stderr: (text) => {
      flush();
      io.stderr(text);
    },
    flush,
  };
}

/** Runs one turn; resolves with the exit status (0 completed, 1 failed, 130 cancelled). */
export async function runExec(options: ExecOptions, rawIO: ExecIO = defaultIO): Promise<number> {
  const io = coalesced(rawIO);
  try {
    return await execTurn(options, io);
  } finally {
    io.flush();
  }
}

async function execTurn(options: ExecOptions, io: ExecIO & { flush: () => void }): Promise<number> {
  const config = loadConfigOrReport(options.flags, (line) => io.stderr(line + "\n"));
  if (!config) return EXEC_EXIT.usage;
  let prompt = options.prompt;
  if (prompt === "-") {
    try {
      prompt = await readStdinPrompt(config.max_prompt_bytes);
    } catch (e) {
      io.stderr(`scv exec: ${errorText(e)}\n`);
      return EXEC_EXIT.usage;
    }
  }
  let attachments: ImageAttachment[] = [];
  if (options.images?.length) {
    const got = await readExecImages(options.images, config.max_image_bytes);
    if (typeof got === "string") {
      io.stderr(`scv exec: ${got}\n`);
      return EXEC_EXIT.usage;
    }
    attachments = got;
  }
  const cwd = options.cwd === undefined
    ? Deno.cwd()
    : options.cwd.startsWith("/")
    ? options.cwd
    : `${Deno.cwd()}/${options.cwd}`;

  const c2s = new TransformStream<Uint8Array, Uint8Array>();
  const s2c = new TransformStream<Uint8Array, Uint8Array>();
  const logs: string[] = [];
  const server = serve({
    readable: c2s.readable,
    writable: s2c.writable,
    // The client below is this code, typed by the protocol: checking its frames with zod again
    // would load zod for a turn that calls no tool (docs/performance.md).
    trustedClient: true,
    // The server is in this process: a frame carrying the images inline costs no pipe.
    config: attachments.length > 0
      ? {
        ...config,
        max_client_frame_bytes: execFrameLimit(config.max_client_frame_bytes, attachments),
      }
      : config,
    log: (line) => {
      // What the session store says (deletions at startup, a recording that stopped) is for
      // the user; the server's own diagnostics stay quiet.
      if (line.startsWith("scv: ")) io.stderr(line + "\n");
      else if (logs.length < 100) logs.push(line);
    },
    onMcpStatus: (s) => {
      if (s.status !== "failed") return;
      const why = (s.error ?? "failed").replace(/\s+/g, " ");
      io.stderr(`scv exec: warning: ${why.length > 300 ? why.slice(0, 300) + "…" : why}\n`);
    },
  });
  const client = new PeonClient(s2c.readable, c2s.writable, {
    name: "scv-exec",
    maxFrameBytes: config.max_server_frame_bytes,
    // The server runs in this process from the same schemas: checking its events again would
    // cost a zod parse per delta.
    validate: false,
  });

  // SIGINT (Ctrl+C), SIGTERM and SIGHUP (the terminal closed) cancel the turn, so its tool
  // processes are killed and the server shuts down in order; a second signal exits at once.
  let sigints = 0;
  let cancel: (() => void) | undefined;
  const onSignal = (sig: typeof ENDING_SIGNALS[number]) => () => {
    sigints++;
    if (sigints === 1) {
      io.stderr(
        sig === "SIGINT"
          ? "\nscv exec: cancelling (press Ctrl+C again to exit at once)\n"
          : `\nscv exec: ${sig}: cancelling\n`,
      );
      // Before the turn started, turn.started cancels it as soon as it comes.
      cancel?.();
    } else {
      io.flush();
      Deno.exit(EXEC_EXIT.cancelled);
    }
  };
  const listeners: Array<[typeof ENDING_SIGNALS[number], () => void]> = [];
  for (const sig of ENDING_SIGNALS) {
    try {
      const fn = onSignal(sig);
      Deno.addSignalListener(sig, fn);
      listeners.push([sig, fn]);
    } catch {
      // No signal support: cancellation only through the server's EOF.
    }
  }

  try {
    // Reasoning goes only into --json (plain output is the answer); notices go to stderr.
    await client.initialize({ reasoning: options.json === true, notices: true });
    const session = await client.startSession(cwd, options.resume);
    // So the conversation can be continued: scv exec --session ID.
    io.stderr(
      `scv exec: session ${session.session_id}${session.resumed ? " (resumed)" : ""}\n`,
    );
    if (session.notice) io.stderr(`scv exec: ${session.notice}\n`);
    if (session.sandbox?.mode === "off" && config.sandbox !== "off") {
      io.stderr(
        config.sandbox === "auto"
          ? `scv exec: warning: the sandbox is off (${session.sandbox.reason}); bash commands ` +
            `run with your full rights, approval is the only guard\n`
          : `scv exec: warning: ${session.sandbox.reason}\n`,
      );
    }
    if (options.json) io.stdout(JSON.stringify(session) + "\n");
    const requestId = client.nextRequestId();
    let endsWithNewline = true;
    const status = await new Promise<number>((resolve) => {
      let turnId: string | undefined;
      client.on((input) => {
        if (input.kind === "closed") return resolve(EXEC_EXIT.failed);
        if (input.kind === "malformed") {
          io.stderr(`scv exec: malformed frame from the server: ${input.reason}\n`);
          return;
        }
        const ev: ServerEvent = input.event;
        // The frame as the server wrote it: no second JSON.stringify per event.
        if (options.json) io.stdout(input.text + "\n");
        switch (ev.type) {
          case "error":
            if (ev.request_id === requestId || ev.fatal) {
              io.stderr(`scv exec: ${ev.code}: ${ev.message}\n`);
              resolve(EXEC_EXIT.failed);
            }
            return;
          case "turn.started":
            if (ev.request_id !== requestId) return;
            turnId = ev.turn_id;
            cancel = () =>
              void client.send({
                type: "turn.cancel",
                session_id: session.session_id,
                turn_id: ev.turn_id,
              }).catch(() => {});
            if (sigints > 0) cancel();
            return;
          case "assistant.delta":
            if (!options.json && ev.content) {
              io.stdout(ev.content);
              endsWithNewline = ev.content.endsWith("\n");
            }
            return;
          case "assistant.completed":
            if (!options.json && ev.content && !endsWithNewline) {
              io.stdout("\n");
              endsWithNewline = true;
            }
            return;
          case "tool.proposed":
            if (!options.json) io.stderr(`▸ ${ev.name} ${oneLine(JSON.stringify(ev.arguments))}\n`);
            return;
          case "approval.requested":
            io.stderr(
              `scv exec: denied ${ev.name} (${
                oneLine(ev.summary)
              }): it needs approval (risk ${ev.risk}) ` +
                `and exec cannot ask; rerun with --approval-policy never to allow it (or ` +
                `--approval-policy auto: sandboxed bash and workspace writes run)\n`,
            );
            void client.send({
              type: "approval.resolve",
              session_id: session.session_id,
              approval_id: ev.approval_id,
              approved: false,
            }).catch(() => {});
            return;
          case "tool.completed":
            if (!options.json) {
              const mark = ev.success ? "✓" : "✗";
              const first = oneLine(ev.output.split("\n").find((l) => l.trim()) ?? "");
              io.stderr(`${mark} ${ev.name}${first ? `: ${first}` : ""}\n`);
            }
            return;
          case "turn.notice":
            if (!options.json) io.stderr(`scv exec: notice: ${ev.message}\n`);
            break;
          case "plan.updated":
            // The whole plan each time, as the checklist the model reads back.
            if (!options.json) {
              const list = ev.steps.length === 0 ? "(empty)" : planText(ev.steps);
              io.stderr(`Plan:\n${list.replace(/^/gm, "  ")}\n`);
            }
            return;
          case "context.compacted":
            if (!options.json) {
              io.stderr(
                `scv exec: context compacted (${ev.before_tokens} → ${ev.after_tokens} tokens)\n`,
              );
            }
            return;
          case "turn.completed":
            if (ev.turn_id === turnId) resolve(EXEC_EXIT.completed);
            return;
          case "turn.failed":
            if (ev.turn_id === turnId) {
              io.stderr(`scv exec: turn failed (${ev.code}): ${ev.message}\n`);
              resolve(EXEC_EXIT.failed);
            }
            return;
          case "turn.cancelled":
            if (ev.turn_id === turnId) {
              io.stderr("scv exec: turn cancelled\n");
              resolve(EXEC_EXIT.cancelled);
            }
            return;
        }
      });
      client.send({
        type: "turn.start",
        request_id: requestId,
        session_id: session.session_id,
        prompt,
        ...(attachments.length > 0 ? { attachments } : {}),
      }).catch(() => resolve(EXEC_EXIT.failed));
    });
    await client.close();
    await server;
    return status;
  } catch (e) {
    const msg = e instanceof PeonRequestError ? e.event.message : String(e);
    io.stderr(`scv exec: ${msg}\n`);
    await client.abort();
    await server;
    return EXEC_EXIT.failed;
  } finally {
    for (const [sig, fn] of listeners) Deno.removeSignalListener(sig, fn);
  }
}
