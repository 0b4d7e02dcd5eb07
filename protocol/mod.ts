/**
 * The protocol's face for a Peon client: the typed client, the wire's types and constants, and
 * the texts every face renders alike (a plan, a rule's line, a unified diff). `tui/` imports
 * the protocol through this file only (tests/layering_test.ts). Loading it loads no zod: the
 * schemas' types are re-exported as types, and the client loads the schemas itself when it
 * checks events.
 *
 * @module
 */
export * from "./constants.ts";
export type * from "./types.ts";
export type { ImageAttachment, Risk, RuleView } from "./schema.ts";
export { PeonClient, PeonRequestError } from "./client.ts";
export type {
  ClientInput,
  ClientListener,
  DistributiveOmit,
  OutgoingMessage,
  PeonClientOptions,
} from "./client.ts";
export { parsePlanText, type PlanLine, planResult, planText } from "./plan_text.ts";
export { ruleLine, ruleOrigin } from "./rule_text.ts";
export { unifiedDiff } from "./unified_diff.ts";
