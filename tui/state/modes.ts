/**
 * The approval policy from the TUI (scv 0.3, docs/plan_mode.md): `/plan` turns plan mode on and
 * off, Shift+Tab cycles the policies, and a turn that ends in plan mode offers to switch to
 * `auto` and go on with one key (Enter on an empty prompt). Each change is a `session.configure`
 * of the idle session; the policy in force is what `session.configured` says.
 *
 * @module
 */
import { type ClientState, type Effect, requestId } from "./model.ts";
import { busy } from "./sessions.ts";
import { notice } from "./transcript.ts";
import { startTurn } from "./turn.ts";

/**
 * The order Shift+Tab walks. `never` is left out on purpose: one key press away from no
 * approval at all would be too easy to hit; the config or `--approval-policy never` sets it
 * (and from there Shift+Tab goes on to `on-risk`).
 */
export const POLICY_CYCLE = ["on-risk", "auto", "plan", "always"] as const;

/** What each policy means, in the notice a change gives. */
const POLICY_TEXT: Readonly<Record<string, string>> = {
  "always": "every tool call asks",
  "on-risk": "reads run; writes and commands ask",
  "auto": "workspace edits and sandboxed commands run; the rest asks",
  "never": "nothing asks",
  "plan": "plan mode: only read-only tools run; writes and commands are refused",
};

/** The line a finished plan-mode turn shows above the composer. */
export const PLAN_OFFER =
  "Plan mode · Enter on an empty prompt switches to auto and goes on · Shift+Tab changes mode";

/** The prompt that carries out the plan once plan mode is left by the offer. */
export const GO_ON_PROMPT = "Go on: carry out the plan.";

/** Asks the server for `policy` on the idle session; `then: "go-on"` sends the go-on prompt. */
export function configurePolicy(
  state: ClientState,
  policy: string,
  then?: "go-on",
): Effect[] {
  if (busy(state, "change the approval policy")) return [];
  state.planOffer = false;
  const id = requestId(state);
  state.pending.configure = id;
  state.pending.goOn = then === "go-on" ? id : undefined;
  return [{
    kind: "send",
    message: {
      type: "session.configure",
      request_id: id,
      session_id: state.session!.id,
      approval_policy: policy as "plan",
    },
  }];
}

/**
 * Shift+Tab: the next policy of {@link POLICY_CYCLE}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nextPolicy } from "./modes.ts";
 * assert.equal(nextPolicy("on-risk"), "auto");
 * assert.equal(nextPolicy("always"), "on-risk");
 * assert.equal(nextPolicy("never"), "on-risk");
 * ```
 */
export function nextPolicy(current: string): string {
  const i = (POLICY_CYCLE as readonly string[]).indexOf(current);
  return POLICY_CYCLE[(i + 1) % POLICY_CYCLE.length]!;
}

/** `/plan`: plan mode on; when it is on already, back to the policy before it. */
export function togglePlan(state: ClientState): Effect[] {
  if (state.approvalPolicy !== "plan") {
    const effects = configurePolicy(state, "plan");
    if (effects.length > 0) state.policyBeforePlan = state.approvalPolicy;
    return effects;
  }
  return configurePolicy(state, state.policyBeforePlan ?? "on-risk");
}

/** A turn ended: in plan mode, the go-on offer shows (until the next prompt or change). */
export function offerGoOn(state: ClientState): void {
  state.planOffer = !state.turn && state.approvalPolicy === "plan";
}

/** Enter on an empty prompt while the offer shows: switch to `auto`, then go on. */
export function goOn(state: ClientState): Effect[] | undefined {
  if (!state.planOffer || state.turn || state.composer.text.trim() !== "") return undefined;
  return configurePolicy(state, "auto", "go-on");
}

/**
 * `session.configured` changed the policy: say so, and send the go-on prompt when the change
 * was the offer's.
 */
export function afterPolicyChange(
  state: ClientState,
  previous: string,
  event: { request_id: string; approval_policy: string },
): Effect[] {
  const policy = event.approval_policy;
  if (policy !== "plan") state.planOffer = false;
  if (policy !== previous) {
    notice(
      state,
      "info",
      `Approval policy: ${policy} for the next turns (${POLICY_TEXT[policy] ?? policy})`,
    );
  }
  if (state.pending.goOn !== event.request_id) return [];
  state.pending.goOn = undefined;
  if (policy === "plan" || state.turn) return [];
  return startTurn(state, GO_ON_PROMPT);
}
