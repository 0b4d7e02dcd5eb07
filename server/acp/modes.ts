/**
 * ACP session modes are scv's approval policies: an editor's mode picker switches which tool
 * calls ask. The mode ids are the policy names of the configuration.
 *
 * @module
 */
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import type { ApprovalPolicy } from "../config.ts";

/** Each approval policy as a mode; the table is total, so a new policy must be named here. */
const MODES: Readonly<Record<ApprovalPolicy, Omit<SessionMode, "id">>> = {
  "always": {
    name: "Ask every time",
    description: "Every tool call asks for permission, reads included",
  },
  "on-risk": {
    name: "Ask before changes",
    description: "Reads inside the workspace run; writes, commands and reads outside ask",
  },
  "auto": {
    name: "Ask outside the sandbox",
    description: "Workspace reads and writes and sandboxed commands run; the rest asks",
  },
  "never": {
    name: "Never ask",
    description: "Every tool call runs without asking",
  },
  "plan": {
    name: "Plan",
    description: "Only read-only tools run; writes and commands are refused, the agent proposes",
  },
};

/**
 * The mode state of a session whose policy is `current`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modeState } from "./modes.ts";
 * const state = modeState("on-risk");
 * assert.equal(state.currentModeId, "on-risk");
 * assert(state.availableModes.some((m) => m.id === "never"));
 * ```
 */
export function modeState(current: ApprovalPolicy): SessionModeState {
  return {
    currentModeId: current,
    availableModes: Object.entries(MODES).map(([id, mode]) => ({ id, ...mode })),
  };
}

/**
 * The approval policy a mode id names, or undefined for an id that is not a mode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { policyOfMode } from "./modes.ts";
 * assert.equal(policyOfMode("never"), "never");
 * assert.equal(policyOfMode("yolo"), undefined);
 * ```
 */
export function policyOfMode(modeId: string): ApprovalPolicy | undefined {
  return Object.hasOwn(MODES, modeId) ? modeId as ApprovalPolicy : undefined;
}
