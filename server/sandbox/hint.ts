/**
 * The one line a failed sandboxed command's output ends with when that output shows a sandbox
 * denial: which rule applied, and which config key changes it. Pure, so every rule is tested
 * in-process.
 *
 * @module
 */
import type { SandboxSpec } from "./types.ts";

const READ_ONLY = /read-only file system|EROFS/i;
const NO_NETWORK = new RegExp(
  [
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "network is unreachable",
    "no address associated with hostname",
    "getaddrinfo",
    "ENETUNREACH",
    "EAI_AGAIN",
    "failed to resolve",
    "connection refused",
  ].join("|"),
  "i",
);

const MISSING = /No such file or directory|ENOENT/;
const ABSOLUTE = /(?:^|[\s'"`:=(])(\/[^\s'"`:,;()]+)/g;

/** The first absolute path a "no such file" output names that lies outside the shown ones. */
function outsideReadable(output: string, spec: SandboxSpec): string | undefined {
  if (!MISSING.test(output)) return undefined;
  const shown = [...spec.readable ?? [], ...spec.writable, spec.workspace, "/tmp", "/dev", "/proc"];
  for (const m of output.matchAll(ABSOLUTE)) {
    const p = m[1]!.replace(/\/+$/, "");
    if (p === "" || shown.some((s) => p === s || p.startsWith(s + "/"))) continue;
    return p;
  }
  return undefined;
}

/** What the hint needs beyond the spec: whether the settings asked for network. */
export interface HintContext {
  /** `sandbox_network` as configured (it may have been refused by scv's own permissions). */
  networkAsked: boolean;
  /** scv's own config and state directories (always hidden, not through `sandbox_deny_read`). */
  scvDirs: readonly string[];
}

/**
 * The hint for `output` of a failed command run under `spec`, or undefined when the output
 * shows no sandbox denial.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { denialHint } from "./hint.ts";
 * const spec = {
 *   mode: "workspace-write" as const, workspace: "/w", writable: ["/w"], readOnly: [],
 *   hidden: [], network: false,
 * };
 * const hint = denialHint("touch: /etc/x: Read-only file system", spec, {
 *   networkAsked: false, scvDirs: [],
 * });
 * assert(hint?.includes('"sandbox_writable_roots"'));
 * ```
 */
export function denialHint(
  output: string,
  spec: SandboxSpec,
  ctx: HintContext,
): string | undefined {
  for (const h of spec.hidden) {
    if (!output.includes(h.path)) continue;
    if (ctx.scvDirs.some((d) => h.path === d || d.startsWith(h.path + "/"))) {
      return `[sandbox: "${h.path}" is hidden from commands: scv's own config and state ` +
        `directories always are]`;
    }
    return `[sandbox: "${h.path}" is hidden from commands by "sandbox_deny_read"; remove it ` +
      `from that list to let commands read it]`;
  }
  const unseen = spec.readable ? outsideReadable(output, spec) : undefined;
  if (unseen !== undefined) {
    return `[sandbox: "${unseen}" is not shown to commands: scv's own --allow-read is scoped, so ` +
      "they see only the system directories, the workspace and what scv may read; add a " +
      'directory to "sandbox_readable_roots" to let them read it]';
  }
  if (READ_ONLY.test(output)) {
    if (/\.git\/(hooks|config)/.test(output)) {
      return "[sandbox: .git/hooks and .git/config are read-only inside the sandbox, so a " +
        'command cannot plant a hook that later runs outside it; "sandbox": "off" lifts this]';
    }
    // Named absolutely, or as dist/ relative to a workspace that is scv's own checkout.
    const build = spec.readOnly.find((r) =>
      r.endsWith("/dist") &&
      (output.includes(`${r}/`) || (r === `${spec.workspace}/dist` && /\bdist\//.test(output)))
    );
    if (build !== undefined) {
      return "[sandbox: scv's own build (its dist/ directory) is read-only inside the sandbox, " +
        'so a command cannot plant code that scv\'s next start would run; "sandbox": "off" ' +
        "lifts this]";
    }
    if (spec.mode === "read-only") {
      return '[sandbox: the file system is read-only for commands ("sandbox": "read-only", or ' +
        'scv may not write the workspace); "sandbox": "workspace-write" lets them write it]';
    }
    return "[sandbox: commands may write only the workspace" +
      (spec.writable.length > 1 ? ', the "sandbox_writable_roots"' : "") +
      ' and a private /tmp; add a directory to "sandbox_writable_roots" to let them write it]';
  }
  if (!spec.network && NO_NETWORK.test(output)) {
    if (ctx.networkAsked) {
      return "[sandbox: commands have no network because scv's own --allow-net is scoped or " +
        'absent; an unscoped --allow-net with "sandbox_network": true allows it]';
    }
    return '[sandbox: commands have no network; set "sandbox_network": true to allow it]';
  }
  return undefined;
}
