/**
 * Every OpenAI-compatible server CONTRACT.md names, replayed through the real server from
 * recorded-shape fixtures (chat_dialects.ts): a text answer, one tool call, two parallel calls,
 * a reasoning answer, a mid-stream error and an HTTP error. Each checks the text, the tool run,
 * that the follow-up request is one that server accepts (its own validation answers it), and
 * usage.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { MockOpenAI, type MockReply, type MockRequest } from "../../support/mock_openai.ts";
import { ServerProcess } from "../../support/server_process.ts";
import { DIALECTS, midErrorReply, signatureOf, textReply, toolReply } from "./chat_dialects.ts";

type Msg = Record<string, unknown> & { tool_calls?: Array<Record<string, unknown>> };

const REASONING = "The user wants a greeting; keep it short.";

for (const d of DIALECTS) {
  Deno.test(`${d.name}: its recorded stream shapes replay through the server`, async (t) => {
    const refused: MockRequest[] = [];
    const accepted: MockRequest[] = [];
    const script = (req: MockRequest): MockReply => {
      const refusal = d.refuses?.(req.body);
      if (refusal) {
        refused.push(req);
        return { kind: "status", status: refusal.status, body: refusal.body };
      }
      accepted.push(req);
      const msgs = req.body.messages as Msg[];
      const prompt = String(msgs.findLast((m) => m.role === "user")?.content);
      if (msgs.at(-1)?.role === "tool") return textReply(d, `${prompt} done`);
      switch (prompt) {
        case "one":
          return toolReply(d, [{ name: "glob", arguments: { pattern: "*.txt" } }], REASONING);
        case "two":
          return toolReply(d, [
            { name: "glob", arguments: { pattern: "*.txt" } },
            { name: "glob", arguments: { pattern: "*.md" } },
          ], REASONING);
        case "think":
          return textReply(d, "Hi!", REASONING);
        case "midstream":
          return midErrorReply(d, "upstream model crashed");
        case "http":
          return { kind: "status", status: d.httpError.status, body: d.httpError.body };
        default:
          return textReply(d, `Hello from ${d.name}.`);
      }
    };
    const mock = await MockOpenAI.start(script);
    const server = await ServerProcess.start({
      config: {
        base_url: mock.baseUrl + (d.basePath ?? ""),
        approval_policy: "never",
        ...d.config,
      },
      ...(d.env ? { env: d.env } : {}),
    });
    try {
      const { sessionId, cwd } = await server.open(undefined, { reasoning: true });
      await Deno.writeTextFile(`${cwd}/a.txt`, "a");
      await Deno.writeTextFile(`${cwd}/b.md`, "b");
      const turn = async (prompt: string) => {
        const { t: started, done } = await server.runTurn(sessionId, prompt);
        const events = server.turnEvents(started.turn_id);
        const of = (type: string) => events.filter((e) => e.type === type);
        return { done, events, of };
      };
      const lastAccepted = () => accepted.at(-1)!.body.messages as Msg[];

      await t.step("a text answer streams as deltas and completes with usage", async () => {
        const { done, of } = await turn("text");
        assertEquals(of("assistant.completed").map((e) => e.content), [`Hello from ${d.name}.`]);
        assertEquals(of("assistant.delta").map((e) => e.content).join(""), `Hello from ${d.name}.`);
        assertEquals([done.type, done.usage], ["turn.completed", {
          input_tokens: 11,
          output_tokens: 7,
        }]);
      });

      await t.step("one tool call runs and the follow-up request is accepted", async () => {
        const { done, of } = await turn("one");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
        const completed = of("tool.completed");
        assertEquals(completed.map((e) => [e.name, e.success]), [["glob", true]]);
        assertMatch(completed[0]!.output, /a\.txt/);
        const msgs = lastAccepted();
        const call = msgs.findLast((m) => m.role === "assistant")!.tool_calls![0]!;
        assertEquals(call.id, d.id(0, 1));
        assertEquals((call.function as { name: string }).name, "glob");
        assertEquals(msgs.at(-1)!.tool_call_id, d.id(0, 1));
        assertEquals(of("assistant.completed").at(-1)!.content, "one done");
        assertEquals(done.usage, { input_tokens: 22, output_tokens: 14 });
      });

      await t.step("two parallel calls both run, in order, and both results go back", async () => {
        const { done, of } = await turn("two");
        assertEquals(done.type, "turn.completed", JSON.stringify(done));
        assertEquals(of("tool.completed").map((e) => e.success), [true, true]);
        assertMatch(of("tool.completed")[1]!.output, /b\.md/);
        const results = lastAccepted().filter((m) => m.role === "tool").slice(-2);
        assertEquals(results.map((m) => m.tool_call_id), [d.id(0, 2), d.id(1, 2)]);
      });

      await t.step(
        "reasoning streams apart from the answer and is never assistant text",
        async () => {
          const { done, of } = await turn("think");
          assertEquals(done.type, "turn.completed");
          assertEquals(of("assistant.completed").at(-1)!.content, "Hi!");
          const reasoning = of("assistant.reasoning.delta").map((e) => e.content).join("");
          assertEquals(reasoning, d.reasoning ? REASONING : "");
          assert(!of("assistant.delta").some((e) => String(e.content).includes("greeting")));
        },
      );

      await t.step("what this server requires back was sent back, and nothing it refuses", () => {
        const toolTurns = lastAccepted().filter((m) => m.role === "assistant" && m.tool_calls);
        assert(toolTurns.length >= 2);
        for (const m of toolTurns) {
          if (d.reasoning === "reasoning_content") assertEquals(m.reasoning_content, REASONING);
          else assertEquals(m.reasoning_content, undefined);
          for (const c of m.tool_calls!) {
            assertEquals(
              c.extra_content,
              d.signatures
                ? { google: { thought_signature: signatureOf(String(c.id)) } }
                : undefined,
            );
          }
        }
        // A final answer's reasoning is never sent back.
        const answers = lastAccepted().filter((m) => m.role === "assistant" && !m.tool_calls);
        assert(answers.every((m) => m.reasoning_content === undefined));
        // Only a server that refused stream_options had one request refused, once.
        assertEquals(refused.length, d.name === "Mistral" ? 1 : 0);
        if (d.name === "Mistral") {
          assert(accepted.every((r) => r.body.stream_options === undefined));
        }
      });

      await t.step("a mid-stream error fails the turn with the provider's message", async () => {
        const { done, of } = await turn("midstream");
        assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
        // A server that loses the message on the wire still fails the turn, never a success.
        assertMatch(
          done.message,
          d.midErrorLost
            ? /stream ended before the response was complete/
            : /upstream model crashed/,
        );
        assertEquals(of("assistant.delta").map((e) => e.content).join(""), "Partial");
      });

      await t.step(
        "an HTTP error fails the turn with the status and the provider's own message",
        async () => {
          const { done } = await turn("http");
          assertEquals([done.type, done.code], ["turn.failed", "provider_error"]);
          assertEquals(
            done.message,
            `Provider returned HTTP ${d.httpError.status}: ${d.httpError.message}`,
          );
        },
      );

      if (d.env) {
        await t.step("headers from the environment are sent and never appear in an event", () => {
          const [name, value] = Object.entries(d.env!)[0]!;
          assertEquals(accepted[0]!.headers.get("api-key"), value, name);
          assertEquals(accepted[0]!.headers.get("authorization"), null);
          assert(!server.events.some((e) => JSON.stringify(e).includes(value)));
        });
      }
      if (d.config?.provider_headers && !d.env) {
        await t.step("configured headers are sent on every request", () => {
          for (const [k, v] of Object.entries(d.config!.provider_headers!)) {
            assert(accepted.every((r) => r.headers.get(k) === v), k);
          }
        });
      }
      assertEquals(server.schemaErrors, []);
    } finally {
      await server.kill();
      await mock.close();
    }
  });
}
