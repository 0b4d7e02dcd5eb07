/**
 * Token accounting for prompts. OpenAI models whose tokenizer is `o200k_base` are counted with
 * it (built lazily in a worker, see `o200k.ts`: it takes a few hundred milliseconds);
 * every other model gets an honest estimate of one token per four UTF-8 bytes. Either way a
 * provider's reported `prompt_tokens` calibrates later counts.
 *
 * @module
 */
import type { ChatMessage, ToolSpec } from "../provider/types.ts";
import { utf8Length } from "../utf8.ts";
import { type ImageTokenRule, imageTokens } from "./image_tokens.ts";

/** Tokens added to every message for its role and delimiters (OpenAI's documented ~3-4). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens added to every tool call besides its name and arguments. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;
/** Tokens that prime every reply (`<|start|>assistant<|message|>`). */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * The calibration ratio never leaves `[MIN_RATIO, MAX_RATIO]`. It never goes below 1: a
 * server that counts fewer tokens than scv leaves the estimate as it is, so the estimate only
 * ever errs on the side of a prompt that fits.
 */
export const MIN_RATIO = 1;
/** The calibration ratio never leaves `[MIN_RATIO, MAX_RATIO]`. */
export const MAX_RATIO = 2;
/** What a ratio raised to a server's count adds on top, so rounding cannot leave it short. */
export const RAISE_MARGIN = 0.01;
/** How far one calibration moves the ratio down toward a lower observed one (0..1); up, it jumps. */
export const CALIBRATION_WEIGHT = 0.5;

/**
 * How a counter turns text into tokens: a real tokenizer, the byte estimate, injected, or an
 * upper bound of the real tokenizer (see {@link TokenCounter.upperBound}).
 */
export type TokenizerName = "o200k_base" | "estimate" | "custom" | "upper_bound";

/** Counts the tokens of a text. */
export type TextTokenCounter = (text: string) => number;

/** Options of {@link TokenCounter}'s constructor. */
export interface TokenCounterOptions {
  /**
   * Counts the tokens of one text. Omitted: the estimate `ceil(utf8Bytes / 4)`.
   * {@link TokenCounter.create} passes the real tokenizer here when the model has one.
   */
  countText?: TextTokenCounter;
  /** scv 0.3: which API's rule counts images (see `image_tokens.ts`). Omitted: `openai`. */
  imageRule?: ImageTokenRule;
}

/** The image rule of a configured provider: Anthropic's for `anthropic`, OpenAI's otherwise. */
export function imageRuleOf(provider: string): ImageTokenRule {
  return provider === "anthropic" ? "anthropic" : "openai";
}

const O200K_MODEL =
  /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt|codex|o1|o3|o4)(?:$|[-.:_@])/i;

/**
 * Whether `model` is an OpenAI model counted with `o200k_base` (GPT-4o, GPT-4.1, GPT-4.5,
 * GPT-5, gpt-oss, o1, o3, o4 and their variants). A router prefix such as `openai/` is ignored.
 * Older models (GPT-4, GPT-3.5, on `cl100k_base`) and all others are estimated.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usesO200k } from "./tokens.ts";
 * assert.equal(usesO200k("gpt-4.1-mini"), true);
 * assert.equal(usesO200k("openai/gpt-4o"), true);
 * assert.equal(usesO200k("llama3.1:8b"), false);
 * ```
 */
export function usesO200k(model: string): boolean {
  return O200K_MODEL.test(model.slice(model.lastIndexOf("/") + 1));
}

/** A character that is not ASCII (UTF-16 code units above 0x7f). */
const NON_ASCII = /[\u0080-\uffff]/;
/** Runs of ASCII digits. */
const DIGIT_RUNS = /[0-9]+/g;

/**
 * The estimate used for models without a known tokenizer, meant to err high: one token per
 * four UTF-8 bytes of ASCII text, but one per digit (Qwen's and Llama's tokenizers split numbers
 * into digits or groups of three) and one per two bytes of other text (most tokenizers give a
 * CJK character one token or more), rounded up. Calibration corrects it upward from reported
 * usage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { estimateTokens } from "./tokens.ts";
 * assert.equal(estimateTokens("hello"), 2);
 * assert.equal(estimateTokens("2024-12-01"), 9); // 8 digits, 2 dashes
 * assert.equal(estimateTokens(""), 0);
 * ```
 */
export function estimateTokens(text: string): number {
  // ASCII text (JSON of tools, code, most prompts) is counted by native regex code: the loop
  // below runs cold on the first request, ~2 ms for the tools' JSON alone.
  if (!NON_ASCII.test(text)) {
    const digits = text.length - text.replace(DIGIT_RUNS, "").length;
    return Math.ceil((text.length - digits) / 4 + digits);
  }
  let digits = 0;
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c < 0x80) ascii++;
    else if (c < 0x800) other += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      other += 4; // a surrogate pair: one 4-byte character
      i++;
    } else other += 3;
  }
  return Math.ceil(ascii / 4 + digits + other / 2);
}

/** Longest run of non-whitespace handed to the tokenizer in one piece. */
const MAX_RUN = 512;

/**
 * Wraps a BPE counter so that runs of more than {@link MAX_RUN} non-whitespace characters are
 * counted in pieces: BPE time grows with the square of a run's length (64 KiB of one letter takes
 * seconds), while splitting changes the count by at most one token per piece.
 */
function boundedRuns(count: TextTokenCounter): TextTokenCounter {
  return (text) => {
    if (text.length <= MAX_RUN) return text === "" ? 0 : count(text);
    let total = 0;
    let start = 0;
    let run = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 32 || (c >= 9 && c <= 13)) {
        run = 0;
      } else if (++run > MAX_RUN && !(c >= 0xdc00 && c <= 0xdfff)) {
        total += count(text.slice(start, i));
        start = i;
        run = 1;
      }
    }
    return start === text.length ? total : total + count(text.slice(start));
  };
}

let o200kLoad: Promise<TextTokenCounter | undefined> | undefined;
let o200kCount: TextTokenCounter | undefined;

/**
 * Builds the compact `o200k_base` tables once per process, in a worker (see `o200k.ts`: ~5 MB
 * kept instead of gpt-tokenizer's ~60 MB); resolves `undefined` if they cannot be built.
 */
function loadO200k(): Promise<TextTokenCounter | undefined> {
  o200kLoad ??= import("./o200k.ts").then((mod) => mod.loadO200kCounter()).then(
    (counter) => {
      o200kCount = boundedRuns((text) => counter.count(text));
      return o200kCount;
    },
    () => undefined,
  );
  return o200kLoad;
}

/**
 * Counts the tokens of messages and prompts for one model.
 *
 * Build it with `await TokenCounter.create(model)`: that loads the `o200k_base` tokenizer when
 * the model uses it (once per process), after which every method is synchronous. The
 * constructor never loads anything: without `countText` it estimates (see
 * {@link estimateTokens}).
 *
 * Per-message counts are cached by message object (in a `WeakMap`), so counting a history that
 * grew by one message tokenizes only that message. Messages are treated as immutable: one
 * changed in place after it was counted keeps its old count.
 *
 * Every count is multiplied by the calibration {@link TokenCounter.ratio} (1 until
 * {@link TokenCounter.calibrate} is called) and rounded up.
 *
 * `countMessage` is a bound function, so it can be passed on as is:
 * `planCompaction(history, { countMessage: counter.countMessage, ... })`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TokenCounter } from "./tokens.ts";
 * const counter = await TokenCounter.create("gpt-4.1-mini");
 * assert.equal(counter.tokenizer, "o200k_base");
 * assert.equal(counter.countText("hello world"), 2);
 * const m = { role: "user" as const, content: "hello world" };
 * assert.equal(counter.countMessage(m), 2 + 4);
 * ```
 */
export class TokenCounter {
  /** The model this counter was built for. */
  readonly model: string;
  #tokenizer: TokenizerName;
  #countText: TextTokenCounter;
  #imageRule: ImageTokenRule;
  #raw = new WeakMap<ChatMessage, number>();
  #toolsRaw = new WeakMap<readonly ToolSpec[], number>();
  #ratio = 1;
  #fixedRatio = false;

  /**
   * A counter for `model`. Without `options.countText` it estimates; use
   * {@link TokenCounter.create} to get the real tokenizer when the model has one.
   */
  constructor(model: string, options: TokenCounterOptions = {}) {
    this.model = model;
    this.#tokenizer = options.countText === undefined
      ? "estimate"
      : options.countText === o200kCount
      ? "o200k_base"
      : "custom";
    this.#countText = options.countText ?? estimateTokens;
    this.#imageRule = options.imageRule ?? "openai";
  }

  /**
   * A counter for `model`, with `o200k_base` loaded when {@link usesO200k} says the model uses
   * it. If the tokenizer cannot be loaded the counter estimates; `tokenizer` then says
   * `"estimate"`.
   */
  static async create(model: string, imageRule?: ImageTokenRule): Promise<TokenCounter> {
    const rule = imageRule === undefined ? {} : { imageRule };
    if (!usesO200k(model)) return new TokenCounter(model, rule);
    const countText = await loadO200k();
    return countText === undefined
      ? new TokenCounter(model, rule)
      : new TokenCounter(model, { countText, ...rule });
  }

  /**
   * A counter for `model` that never counts fewer tokens than the real tokenizer would at any
   * calibration: one token per UTF-8 byte (a BPE token stands for at least one byte) at the
   * highest ratio, {@link MAX_RATIO}; calibrating it changes nothing. A prompt that fits by
   * this count fits by the real one, so the tokenizer (about 100 ms and 60 MB to load) is only
   * loaded for a prompt this bound cannot place under the limit.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { TokenCounter } from "./tokens.ts";
   * const bound = TokenCounter.upperBound("gpt-4.1-mini");
   * assert.equal(bound.tokenizer, "upper_bound");
   * assert.equal(bound.countText("hello world"), 22); // 11 bytes at ratio 2
   * ```
   */
  static upperBound(model: string, imageRule?: ImageTokenRule): TokenCounter {
    const counter = new TokenCounter(model, {
      countText: utf8Length,
      ...(imageRule === undefined ? {} : { imageRule }),
    });
    counter.#tokenizer = "upper_bound";
    counter.#ratio = MAX_RATIO;
    counter.#fixedRatio = true;
    return counter;
  }

  /** How text is turned into tokens. */
  get tokenizer(): TokenizerName {
    return this.#tokenizer;
  }

  /**
   * Starts from a ratio learnt earlier for the same model (kept per model by the context
   * manager), within the bounds; the upper-bound counter keeps its own.
   */
  restoreRatio(ratio: number): void {
    if (this.#fixedRatio || !Number.isFinite(ratio)) return;
    this.#ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio));
  }

  /** The current calibration ratio, within `[MIN_RATIO, MAX_RATIO]`; 1 before calibration. */
  get ratio(): number {
    return this.#ratio;
  }

  #scale(raw: number): number {
    return Math.ceil(raw * this.#ratio);
  }

  /** Calibrated tokens of a bare text (no message overhead). Not cached. */
  countText(text: string): number {
    return this.#scale(this.#countText(text));
  }

  /**
   * Calibrated tokens of one message: {@link MESSAGE_OVERHEAD_TOKENS}, its content, each image
   * by the counter's image rule (`image_tokens.ts`), and for each tool call
   * {@link TOOL_CALL_OVERHEAD_TOKENS} plus its name and arguments. Cached per message object.
   */
  readonly countMessage = (message: ChatMessage): number => {
    let raw = this.#raw.get(message);
    if (raw === undefined) {
      raw = MESSAGE_OVERHEAD_TOKENS;
      if (message.content) raw += this.#countText(message.content);
      if ((message.role === "user" || message.role === "tool") && message.images) {
        for (const image of message.images) raw += imageTokens(image, this.#imageRule);
      }
      if (message.role === "assistant" && message.tool_calls) {
        for (const call of message.tool_calls) {
          raw += TOOL_CALL_OVERHEAD_TOKENS + this.#countText(call.function.name) +
            this.#countText(call.function.arguments);
        }
      }
      this.#raw.set(message, raw);
    }
    return this.#scale(raw);
  };

  /**
   * Calibrated tokens of the tool specs offered to the model, counted as their JSON. Cached per
   * array object (a registry that keeps its specs array pays once).
   */
  countTools(tools: readonly ToolSpec[]): number {
    if (tools.length === 0) return 0;
    let raw = this.#toolsRaw.get(tools);
    if (raw === undefined) {
      raw = this.#countText(JSON.stringify(tools));
      this.#toolsRaw.set(tools, raw);
    }
    return this.#scale(raw);
  }

  /**
   * Calibrated tokens of a whole prompt: each message's {@link TokenCounter.countMessage}, plus
   * `systemTokens` and `toolsTokens` as given (count them with this counter, e.g.
   * `countMessage({ role: "system", content })` and {@link TokenCounter.countTools}), plus
   * {@link REPLY_PRIMING_TOKENS}.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { TokenCounter } from "./tokens.ts";
   * const counter = new TokenCounter("local-model");
   * const prompt = [{ role: "user" as const, content: "abcdefgh" }]; // 8 bytes: 2 tokens
   * assert.equal(counter.countPrompt(prompt, 10, 20), (4 + 2) + 10 + 20 + 3);
   * ```
   */
  countPrompt(
    messages: readonly ChatMessage[],
    systemTokens: number,
    toolsTokens: number,
  ): number {
    let total = systemTokens + toolsTokens + REPLY_PRIMING_TOKENS;
    for (const m of messages) total += this.countMessage(m);
    return total;
  }

  /**
   * Moves the ratio toward what the provider reported. `estimatedPromptTokens` is the
   * {@link TokenCounter.countPrompt} result for the request whose usage reported
   * `reportedPromptTokens`. The observed ratio is `ratio * reported / estimated`; a higher one is
   * taken at once, a lower one {@link CALIBRATION_WEIGHT} of the way, and the result clamped to
   * `[MIN_RATIO, MAX_RATIO]`. A non-positive or non-finite value is ignored, and so is every
   * value on an {@link TokenCounter.upperBound} counter. Returns the ratio.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { TokenCounter } from "./tokens.ts";
   * const counter = new TokenCounter("local-model");
   * counter.calibrate(1000, 1500); // counted low: raised at once, 1% over
   * assert.ok(Math.abs(counter.ratio - 1.515) < 1e-9);
   * assert.equal(counter.countText("abcdefgh"), 4); // ceil(2 * 1.515)
   * counter.calibrate(1000, 500); // counted high: halfway down, never below 1
   * assert.ok(counter.ratio < 1.515 && counter.ratio >= 1);
   * ```
   */
  calibrate(estimatedPromptTokens: number, reportedPromptTokens: number): number {
    if (
      this.#fixedRatio ||
      !(Number.isFinite(estimatedPromptTokens) && estimatedPromptTokens > 0) ||
      !(Number.isFinite(reportedPromptTokens) && reportedPromptTokens > 0)
    ) {
      return this.#ratio;
    }
    const observed = this.#ratio * reportedPromptTokens / estimatedPromptTokens;
    // Erring safe: an estimate found low is raised to what the server counted at once; one
    // found high comes down only halfway per report.
    const next = observed > this.#ratio
      ? observed * (1 + RAISE_MARGIN)
      : this.#ratio + CALIBRATION_WEIGHT * (observed - this.#ratio);
    this.#ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, next));
    return this.#ratio;
  }
}
