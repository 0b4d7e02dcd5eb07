/**
 * The scv command line: parses arguments and dispatches to the TUI, the headless server,
 * `exec` or the ACP agent. Each path imports only what it needs, so `--version` and `server` start fast.
 *
 * @module
 */

import { SCV_VERSION } from "./protocol/constants.ts";

async function main(args: string[]): Promise<number> {
  // Fast path: no argument parser needed to print the version.
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(`scv ${SCV_VERSION}`);
    return 0;
  }
  // Fast path: the headless server is started by programs, often; skip commander for it.
  const { parseExecArgs, parseServerArgs } = await import("./cli/fast_args.ts");
  const serverFlags = parseServerArgs(args);
  if (serverFlags) {
    const { runServer } = await import("./cli/server_command.ts");
    return await runServer(serverFlags);
  }
  // Fast path: editors start `scv acp` for every agent thread.
  const acpFlags = parseServerArgs(args, "acp");
  if (acpFlags) {
    const { runAcp } = await import("./cli/acp_command.ts");
    return await runAcp(acpFlags);
  }
  // Fast path: `scv exec` is scripted too, and its first byte is counted from spawn.
  const execOptions = parseExecArgs(args);
  if (execOptions) {
    const { runExec } = await import("./cli/exec.ts");
    return await runExec(execOptions);
  }
  const { parseCommandLine } = await import("./cli/command_line.ts");
  const cmd = await parseCommandLine(args);
  switch (cmd.kind) {
    case "exit":
      return cmd.status;
    case "server": {
      const { runServer } = await import("./cli/server_command.ts");
      return await runServer(cmd.flags);
    }
    case "acp": {
      const { runAcp } = await import("./cli/acp_command.ts");
      return await runAcp(cmd.flags);
    }
    case "exec": {
      const { runExec } = await import("./cli/exec.ts");
      return await runExec(cmd.options);
    }
    case "sessions": {
      const { runSessions } = await import("./cli/sessions_command.ts");
      return await runSessions(cmd.options);
    }
    case "sandbox-check": {
      const { runSandboxCheck } = await import("./cli/sandbox_check.ts");
      return await runSandboxCheck(cmd.options);
    }
    case "protocol-schema": {
      const { runProtocolSchema } = await import("./cli/protocol_schema.ts");
      return await runProtocolSchema();
    }
    case "rules-check": {
      const { runRulesCheck } = await import("./cli/rules_command.ts");
      return await runRulesCheck(cmd.options);
    }
    case "tui": {
      const { runTuiCommand } = await import("./cli/tui_command.ts");
      return await runTuiCommand(cmd.options);
    }
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
