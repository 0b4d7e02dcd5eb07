/**
 * The fast parsers of `scv server` and `scv exec` agree with commander wherever they answer, and
 * leave everything else (help, errors, unknown flags) to it.
 */
import fc from "fast-check";
import { assert, assertEquals } from "../support/assert.ts";
import { parseExecArgs, parseServerArgs } from "../../cli/fast_args.ts";
import { parseCommandLine } from "../../cli/command_line.ts";

// commander prints usage errors to stderr; the comparisons below only need its verdict.
async function commander(args: string[]) {
  const write = Deno.stderr.writeSync;
  Deno.stderr.writeSync = (p: Uint8Array) => p.length;
  try {
    return await parseCommandLine(args);
  } finally {
    Deno.stderr.writeSync = write;
  }
}

const words = fc.constantFrom(
  "--json",
  "--config",
  "--config=c.jsonc",
  "c.jsonc",
  "--model",
  "--model=m1",
  "m2",
  "--approval-policy",
  "--approval-policy=never",
  "always",
  "bogus",
  "--cwd",
  "--cwd=sub",
  "/abs",
  "-",
  "say hi",
  "--help",
  "--frobnicate",
  "-x",
  "",
  "--",
);

Deno.test("the fast exec parser agrees with commander whenever it answers (fast-check)", async () => {
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(words, { maxLength: 6 }), async (rest) => {
      const args = ["exec", ...rest];
      const fast = parseExecArgs(args);
      if (fast === undefined) return;
      compared++;
      assertEquals(await commander(args), { kind: "exec", options: fast }, JSON.stringify(args));
    }),
    { numRuns: 2000 },
  );
  assert(compared >= 100, `only ${compared} command lines were compared`);
});

for (const kind of ["server", "acp"] as const) {
  Deno.test(`the fast ${kind} parser agrees with commander whenever it answers (fast-check)`, async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(words, { maxLength: 6 }), async (rest) => {
        const args = [kind, ...rest];
        const fast = parseServerArgs(args, kind);
        if (fast === undefined) return;
        compared++;
        const full = await commander(args);
        assert(full.kind === kind, JSON.stringify(args));
        assertEquals(
          [full.flags.config, full.flags.model, full.flags.approvalPolicy],
          [fast.config, fast.model, fast.approvalPolicy],
          JSON.stringify(args),
        );
      }),
      { numRuns: 300 },
    );
    assert(compared >= 30, `only ${compared} command lines were compared`);
  });
}

Deno.test("the fast exec parser takes the common command lines", () => {
  assertEquals(parseExecArgs(["exec", "--json", "--config", "c.jsonc", "hi"]), {
    flags: { config: "c.jsonc", model: undefined, approvalPolicy: undefined },
    prompt: "hi",
    json: true,
    cwd: undefined,
  });
  assertEquals(parseExecArgs(["exec", "--cwd=sub", "-"])?.cwd, `${Deno.cwd()}/sub`);
  assertEquals(
    parseExecArgs(["exec", "--approval-policy", "never", "x"])?.flags.approvalPolicy,
    "never",
  );
});

Deno.test("the fast exec parser leaves help, errors and unknown flags to commander", () => {
  for (
    const args of [
      ["exec"],
      ["exec", "--help"],
      ["exec", "a", "b"],
      ["exec", "--model"],
      ["exec", "--cwd", "", "x"],
      ["exec", "--approval-policy", "sometimes", "x"],
      ["exec", "--continue", "x"],
      ["exec", "--", "-x"],
      ["server"],
    ]
  ) {
    assertEquals(parseExecArgs(args), undefined, JSON.stringify(args));
  }
});
