/**
 * Finds the custom commands: `*.md` files in `~/.config/scv/commands/` (or under
 * `$XDG_CONFIG_HOME`) and in `<workspace>/.scv/commands/`, the workspace's winning on a shared
 * name. Bounded: at most {@link MAX_COMMAND_FILES} files per directory and
 * {@link MAX_COMMAND_BYTES} per file; a directory scv may not read is skipped.
 *
 * @module
 */
import { type CustomCommand, parseCustomCommand } from "../state/mod.ts";
import { errorText } from "../text.ts";

/** Most command files read from one directory. */
export const MAX_COMMAND_FILES = 200;
/** The largest command file read. */
export const MAX_COMMAND_BYTES = 64 * 1024;

/** The directories commands come from, the later winning. */
export function commandDirs(
  env: (name: string) => string | undefined,
  cwd: string,
): string[] {
  const xdg = env("XDG_CONFIG_HOME");
  const home = env("HOME");
  const user = xdg ? `${xdg}/scv/commands` : home ? `${home}/.config/scv/commands` : undefined;
  return [...(user ? [user] : []), `${cwd}/.scv/commands`];
}

/** The commands of `dirs` and a notice for each file left out. */
export async function loadCustomCommands(
  dirs: readonly string[],
): Promise<{ commands: CustomCommand[]; notices: string[] }> {
  const byName = new Map<string, CustomCommand>();
  const notices: string[] = [];
  for (const dir of dirs) {
    const names: string[] = [];
    try {
      for await (const e of Deno.readDir(dir)) {
        if (!e.name.endsWith(".md") || e.isDirectory) continue;
        if (names.length >= MAX_COMMAND_FILES) {
          notices.push(`Only the first ${MAX_COMMAND_FILES} custom commands of ${dir} are used`);
          break;
        }
        names.push(e.name);
      }
    } catch {
      continue; // No such directory, or scv may not read it: no commands from it.
    }
    for (const name of names.sort()) {
      const path = `${dir}/${name}`;
      try {
        const info = await Deno.stat(path);
        if (!info.isFile) continue;
        if (info.size > MAX_COMMAND_BYTES) {
          notices.push(
            `Custom command ${path} is over ${MAX_COMMAND_BYTES / 1024} KiB; it is not loaded`,
          );
          continue;
        }
        const command = parseCustomCommand(name, await Deno.readTextFile(path), path);
        if (!command) {
          notices.push(
            `Custom command ${path}: the name must be letters, digits, "-" or "_"; it is not loaded`,
          );
          continue;
        }
        byName.set(command.name.toLowerCase(), command);
      } catch (e) {
        notices.push(`Cannot read custom command ${path}: ${errorText(e)}`);
      }
    }
  }
  const commands = [...byName.values()].sort((a, b) => a.name < b.name ? -1 : 1);
  return { commands, notices };
}
