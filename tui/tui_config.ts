/**
 * The configuration as the TUI reads it. The command that starts the TUI hands it scv's whole
 * configuration (a `Config` is one of these) and binds the same configuration to the in-process
 * server (`ServerParts`), so the TUI names no server type: it is a Peon client like any other.
 *
 * @module
 */
import type { ApprovalPolicyName } from "../protocol/mod.ts";

/** The settings and limits the TUI applies itself. */
export interface TuiConfig {
  /** The model shown until the session names its own. */
  readonly model: string;
  /** The saved prompt history's bounds. */
  readonly max_prompt_history_items: number;
  readonly max_prompt_history_bytes: number;
  /** The transcript's bounds. */
  readonly max_transcript_items: number;
  readonly max_transcript_bytes: number;
  /** The prompt limit of the in-process server (a spawned one's is not known). */
  readonly max_prompt_bytes: number;
  /** The largest frame the server sends; the client accepts at least 8 MiB. */
  readonly max_server_frame_bytes: number;
  /** Notifications while the terminal is not focused. */
  readonly notify: boolean;
  /** The approval policy the session starts with. */
  readonly approval_policy: ApprovalPolicyName;
  /** The key that steers a running turn; omitted: Enter. */
  readonly steer_key?: "enter" | "tab";
}
