/**
 * The scv command line: parses arguments and dispatches to the TUI, the headless server,
 * `exec` or the ACP agent. Each path imports only what it needs, so `--version` and `server` start fast.
 *
 * The commands' modules are imported by a computed specifier (`command`): `deno run` reads and
 * parses every module a literal `import()` names before any code runs, so with literal imports
 * every start paid for the whole CLI (the TUI, ACP, every command), and `--version` took twice
 * Deno's own start. The cost: from a checkout, scv needs read access to its own directory; a
 * compiled binary (`deno task compile` includes the modules) and a JSR run do not.
 *
 * @module
 */

import { SCV_VERSION } from "./protocol/constants.ts";
import { parseExecArgs, parseServerArgs } from "./cli/fast_args.ts";
import { type CommandName, freshDist } from "./cli/dist.ts";

/**
 * A command's module: from the build (`deno task build`, cli/dist.ts) while it is fresh, else
 * from its source under `cli/`. A build missing one of its own files (removed by hand, or by a
 * later build's pruning) is no build: the sources run.
 */
async function command<M>(name: CommandName): Promise<M> {
  const dist = freshDist(new URL(".", import.meta.url));
  if (dist) {
    try {
      return await import(new URL(`${name}/${name}.js`, dist).href) as M;
    } catch (e) {
      const missing = e instanceof TypeError && /Module not found/.test(e.message) &&
        e.message.includes(dist.href);
      if (!missing) throw e;
    }
  }
  const url = new URL(`./cli/${name}.ts`, import.meta.url);
  try {
    return await import(url.href) as M;
  } catch (e) {
    const dir = decodeURIComponent(new URL(".", import.meta.url).pathname).replace(/\/$/, "");
    if (url.protocol === "file:" && isNoRead(e, dir)) {
      throw new NoReadError(
        `scv cannot read its own code: add its directory to --allow-read ` +
          `(--allow-read=${dir},...): ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    throw e;
  }
}

/** Why a command could not load for lack of read access to scv's own files. */
class NoReadError extends Error {}

/**
 * Whether `e` is Deno refusing to read one of scv's own files (under `dir`) for the import; a
 * refusal of anything else, in a module's own code, is that module's error.
 */
function isNoRead(e: unknown, dir: string): boolean {
  return e instanceof Error && /Requires read access/.test(e.message) &&
    e.message.includes(`"${dir}/`);
}

async function main(args: string[]): Promise<number> {
  // Fast path: no argument parser needed to print the version.
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(`scv ${SCV_VERSION}`);
    return 0;
  }
  // Fast path: the headless server is started by programs, often; skip commander for it.
  const serverFlags = parseServerArgs(args);
  if (serverFlags) {
    const { runServer } = await command<typeof import("./cli/server_command.ts")>("server_command");
    return await runServer(serverFlags);
  }
  // Fast path: editors start `scv acp` for every agent thread.
  const acpFlags = parseServerArgs(args, "acp");
  if (acpFlags) {
    const { runAcp } = await command<typeof import("./cli/acp_command.ts")>("acp_command");
    return await runAcp(acpFlags);
  }
  // Fast path: `scv exec` is scripted too, and its first byte is counted from spawn.
  const execOptions = parseExecArgs(args);
  if (execOptions) {
    const { runExec } = await command<typeof import("./cli/exec.ts")>("exec");
    return await runExec(execOptions);
  }
  const { parseCommandLine } = await command<typeof import("./cli/command_line.ts")>(
    "command_line",
  );
  const cmd = await parseCommandLine(args);
  switch (cmd.kind) {
    case "exit":
      return cmd.status;
    case "server": {
      const { runServer } = await command<typeof import("./cli/server_command.ts")>(
        "server_command",
      );
      return await runServer(cmd.flags);
    }
    case "acp": {
      const { runAcp } = await command<typeof import("./cli/acp_command.ts")>("acp_command");
      return await runAcp(cmd.flags);
    }
    case "exec": {
      const { runExec } = await command<typeof import("./cli/exec.ts")>("exec");
      return await runExec(cmd.options);
    }
    case "sessions": {
      const { runSessions } = await command<typeof import("./cli/sessions_command.ts")>(
        "sessions_command",
      );
      return await runSessions(cmd.options);
    }
    case "sandbox-check": {
      const { runSandboxCheck } = await command<typeof import("./cli/sandbox_check.ts")>(
        "sandbox_check",
      );
      return await runSandboxCheck(cmd.options);
    }
    case "protocol-schema": {
      const { runProtocolSchema } = await command<typeof import("./cli/protocol_schema.ts")>(
        "protocol_schema",
      );
      return await runProtocolSchema();
    }
    case "rules-check": {
      const { runRulesCheck } = await command<typeof import("./cli/rules_command.ts")>(
        "rules_command",
      );
      return await runRulesCheck(cmd.options);
    }
    case "tui": {
      const { runTuiCommand } = await command<typeof import("./cli/tui_command.ts")>("tui_command");
      return await runTuiCommand(cmd.options);
    }
  }
}

if (import.meta.main) {
  let status: number;
  try {
    status = await main(Deno.args);
  } catch (e) {
    if (!(e instanceof NoReadError)) throw e;
    console.error(`scv: ${e.message}`);
    status = 2;
  }
  Deno.exit(status);
}
