/**
 * `approval_policy: "auto"` (CONTRACT.md "More configuration"): reads and writes inside the
 * workspace and bash while the sandbox is on run without asking; a read outside, bash with the
 * sandbox off, and any tool that does not declare itself safe ask.
 */
import assert from "node:assert/strict";
import { sandboxTest } from "../sandbox/support.ts";
import { needsApproval } from "../../../server/core/approvals.ts";
import { createBashTool } from "../../../server/tools/bash.ts";
import { readFileTool } from "../../../server/tools/read_file.ts";
import { writeFileTool } from "../../../server/tools/write_file.ts";
import { editFileTool } from "../../../server/tools/edit_file.ts";
import { openSandbox } from "../../../server/sandbox/mod.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";

Deno.test("auto runs a read inside the workspace and asks for a read outside it", () => {
  assert.equal(needsApproval("auto", "read", readFileTool), false);
  // A read tool whose path leaves the workspace is announced with risk write.
  assert.equal(needsApproval("auto", "write", readFileTool), true);
});

Deno.test("auto runs workspace writes without asking", () => {
  assert.equal(needsApproval("auto", "write", writeFileTool), false);
  assert.equal(needsApproval("auto", "write", editFileTool), false);
});

sandboxTest("auto runs bash without asking only while the sandbox is on", async () => {
  const on = createBashTool({ sandbox: await openSandbox({ ...DEFAULT_CONFIG }) });
  const off = createBashTool({ sandbox: await openSandbox({ ...DEFAULT_CONFIG, sandbox: "off" }) });
  assert.equal(on.sandboxed?.(), true);
  assert.equal(needsApproval("auto", "process", on), false);
  assert.equal(off.sandboxed?.(), false);
  assert.equal(needsApproval("auto", "process", off), true);
});

Deno.test("auto asks for a tool that does not say it is safe, unless its call is a read", () => {
  assert.equal(needsApproval("auto", "process", {}), true);
  assert.equal(needsApproval("auto", "read", {}), false);
});
