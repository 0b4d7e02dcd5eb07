/**
 * A live session as the recorder sees it, driven by the caller: shared by the store tests and
 * the sessions bench.
 *
 * @module
 */
import type { ChatMessage } from "../../../server/provider/types.ts";
import type { RecordedSessionView } from "../../../server/sessions/recorder.ts";

/** A live session as a recorder sees it, its fields set by the caller. */
export class FakeSession implements RecordedSessionView {
  readonly id = crypto.randomUUID();
  history: ChatMessage[] = [];
  usage = { input_tokens: 0, output_tokens: 0 };
  compactedMessages = 0;
  lastSeq = 0;
  model = "m";
  approvalPolicy = "on-risk";
  configured = false;
  constructor(readonly cwd: string) {}
}
