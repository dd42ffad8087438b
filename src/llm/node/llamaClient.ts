/**
 * The chat client over the embedded local engine (localEngine.ts): the same contract as the
 * OpenAI SDK client, so the strategist's counters, failure handling, cache and timing are
 * one code path for both. Decoding is constrained, so answers parse: by a grammar of the
 * request's JSON schema (the json format), or to the number tokens for the compact "1,3"
 * answer (request.numberList). A compact answer is read, by default, from the model's
 * probabilities of the numbers, calibrated (scoredNumbers); sampling them is the other way.
 * Token counts are the model's own. Node only.
 */
import { statSync } from 'node:fs';
import type { ChatHistoryItem, GbnfJsonSchema, Token, TokenBias } from 'node-llama-cpp';
import { type ChatClient, ChatError, type ChatMessage, type ChatRequest, type ChatResponse } from '../chat';
import { type EngineSlot, type LocalEngine, promptKey } from './localEngine';
import type { CompactDecoding } from '../settings';
import { NUMBER_LOGIT_BIAS, calibratedChoice, compactAnswer, contentFreeState, scoreNumberList } from '../numberScores';

export { calibratedChoice, contentFreeState };

export interface LlamaClientOptions {
  /**
   * Keep each sequence's evaluated prefix between calls (default). False evaluates every
   * prompt from its first token (the benchmark's cold figures).
   */
  readonly prefixReuse?: boolean;
  /** Longest string the JSON grammar lets the model write where the schema sets none; default 160. */
  readonly maxStringLength?: number;
  /**
   * How a compact answer's numbers are chosen: 'scores' (default) reads each agent's number
   * probabilities and keeps the most likely after contextual calibration; 'sample' samples
   * them at the request's temperature.
   */
  readonly compact?: CompactDecoding;
  /**
   * Divide scored numbers by the model's prior on a content-free state (default true). An
   * adapter tuned on the raw probabilities (npm run llm:tune) answers without it: it was
   * taught to make the right number the most likely one, which is what is then read.
   */
  readonly calibrate?: boolean;
}


/** No calibration: every number's prior alike, so the most likely number is chosen. */
const UNIFORM_PRIORS: Map<string, number[]> = new Map();

/** What one call cost the engine, beyond the answer (benchmarks read it). */
export interface LocalCallFigures {
  /** Prompt tokens evaluated (the rest the sequence held from the last call: the prefix). */
  readonly evaluatedTokens: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly ms: number;
}

/**
 * The token of each number from 1 to `max`, as the model writes it ("1" is one token), so a
 * compact answer can be decoded a number a token.
 */
export function numberTokens(tokenize: (text: string) => readonly Token[], max: number): Token[] {
  if (!Number.isInteger(max) || max < 1 || max > 9) throw new Error(`numbers 1-9 only, got 1-${max}`);
  return Array.from({ length: max }, (_, i) => {
    const tokens = tokenize(String(i + 1));
    if (tokens.length !== 1) throw new ChatError('server', `the local model writes ${i + 1} as ${tokens.length} tokens; a compact answer needs one token a number`);
    return tokens[0]!;
  });
}

/**
 * The longest string a JSON answer may hold: `maxLength`, and within the answer's token
 * budget less the object's own tokens even if every character were a token of its own (a
 * model can write digits, one token each, until the budget ends the answer unclosed).
 */
export function stringBound(maxLength: number, maxTokens: number | undefined): number {
  return maxTokens ? Math.max(8, Math.min(maxLength, maxTokens - JSON_SKELETON_TOKENS)) : maxLength;
}

/**
 * Tokens of a decision's JSON beside its rationale's text: braces, keys, quotes, skill names
 * and the whitespace the grammar allows, even where the model writes them a character a
 * token (two agents: 49 characters without whitespace). At 40, a tuned model wrote
 * '{ "skills": [ "secure", "combat"\n    ], "rationale": " ( 43333…' and its 120 tokens ran
 * out 78 characters into the rationale, the answer unclosed.
 */
const JSON_SKELETON_TOKENS = 64;

/** The schema with a length bound on every string that has none, so answers end within their token budget. */
export function boundStrings(schema: unknown, maxLength: number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => boundStrings(s, maxLength));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = key === 'enum' || key === 'const' ? value : boundStrings(value, maxLength);
  if (out.type === 'string' && out.maxLength === undefined && out.enum === undefined) out.maxLength = maxLength;
  return out;
}

/** A test of whether a JSON answer so far is complete (compact answers stop by count, numberList). */
function wholeAnswer(request: ChatRequest): ((text: string) => boolean) | null {
  if (request.responseFormat) {
    return (text) => {
      if (!text.trimEnd().endsWith('}')) return false;
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
  }
  return null;
}

/** The chat as node-llama-cpp's history, ending with the model's turn to answer. */
export function toHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m) =>
    m.role === 'system' ? { type: 'system', text: m.content } : m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] },
  );
  history.push({ type: 'model', response: [] });
  return history;
}

/** A seed from the request, so one prompt gets one answer run after run. */
function seedOf(request: ChatRequest): number {
  let h = 0x811c9dc5;
  for (const m of request.messages) {
    for (let i = 0; i < m.content.length; i++) h = Math.imul(h ^ m.content.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

const aborted = () => new ChatError('aborted', 'the call was aborted');

/**
 * What a sequence's evaluation of a prompt keeps of what it holds: the fixed part (fixedPrefix)
 * where it holds all of it, cut from the rest where this prompt cuts it; else nothing.
 * llama.cpp's sums for a token depend on the batch it was evaluated in, not only on the tokens
 * before it: a fixed part reused from another system prompt's evaluation, from one cut short
 * or cut elsewhere, was evaluated in other pieces, and a prompt read other probabilities on
 * that sequence than on a fresh one. The last token is always evaluated (generation starts
 * from it).
 */
function reusedTokens(slot: EngineSlot, prompt: Token[], fixed: number): number {
  const held = slot.sequence.compareContextTokens(prompt).firstDifferentIndex;
  return fixed > 0 && held >= fixed && slot.fixedEnd === fixed ? Math.min(fixed, prompt.length - 1) : 0;
}

/** How many first tokens two prompts share. */
function commonStart(a: readonly Token[], b: readonly Token[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Prompt tokens evaluated between two looks at the caller's signal. node-llama-cpp evaluates
 * a prompt given at once to its end, whoever still waits for it (a 24 KB prompt held the
 * model 93 s after its caller left); in pieces, a call given up stops within one piece.
 * A decision's prompt (67 new tokens, 620 from cold) takes one to five pieces.
 */
export const PROMPT_PIECE_TOKENS = 128;

export class LlamaChatClient implements ChatClient {
  readonly model: string;
  /** What the last call cost (benchmarks). */
  lastCall: LocalCallFigures | null = null;
  /** The bias that lets only the numbers 1 to `max` be sampled, by `max` (numberList). */
  private readonly numberBiases = new Map<number, TokenBias>();
  /** The number tokens 1 to `max`, by `max`. */
  private readonly numberTokenLists = new Map<number, Token[]>();
  private readonly prefixReuse: boolean;
  private readonly maxStringLength: number;
  private readonly compact: CompactDecoding;
  private readonly calibrate: boolean;
  /** The number priors of a system prompt: index 0 the first agent's, then one per earlier numbers ('1', '1,3', ...). */
  private readonly priors = new Map<string, Map<string, number[]>>();
  /** Per system prompt, its content-free prompt in tokens and how many first tokens its prompts share over any situation (fixedPrefix). */
  private readonly fixedPrefixes = new Map<string, { readonly free: readonly Token[]; readonly length: number }>();

  constructor(
    readonly engine: LocalEngine,
    options: LlamaClientOptions = {},
  ) {
    this.model = engine.name;
    this.prefixReuse = options.prefixReuse ?? true;
    this.maxStringLength = options.maxStringLength ?? 160;
    this.compact = options.compact ?? 'scores';
    this.calibrate = options.calibrate ?? true;
  }

  /**
   * The model file's pinned digest (or, for an unpinned file, its size and modification
   * time), the model's name with its adapter's digest, and how compact answers are read.
   */
  get answerIdentity(): string {
    const { gguf, sha256 } = this.engine.options;
    const stat = sha256 === undefined ? statSync(gguf) : null;
    const file = stat ? `file:${stat.size}:${stat.mtimeMs}` : `sha256:${sha256}`;
    return `local ${this.model} ${file} compact:${this.compact}${this.calibrate ? '' : ':raw'}`;
  }

  /**
   * A scored compact answer reads probabilities, whatever the temperature, and so does a
   * greedy one at temperature 0; the engine's sums do not depend on its threads or on what
   * its sequence held before (generate), so both are the same to the bit every time.
   */
  answersAlike(request: ChatRequest): boolean {
    return request.temperature === 0 || this.scores(request);
  }

  private scores(request: ChatRequest): boolean {
    return Boolean(request.numberList && !request.responseFormat && this.compact === 'scores');
  }

  /** Free the engine (its model, context and llama.cpp): a connection's client is its engine's only user. */
  close(): Promise<void> {
    return this.engine.dispose();
  }

  get contextTokens(): number {
    return this.engine.contextSize;
  }

  /** The request's prompt as the model sees it (its chat template applied), in the model's tokens. */
  promptTokens(request: ChatRequest): number {
    return this.promptTokenIds(request.messages).length;
  }

  /** The prompt of `messages` as the model reads it, up to its turn to answer: what tuning feeds it. */
  promptTokenIds(messages: readonly ChatMessage[]): number[] {
    return [...this.tokenizePrompt(this.engine.chatWrapper, toHistory(messages))];
  }

  /** The tokens a compact answer is written in: the numbers 1 to `max`, and the comma between them. */
  answerTokenIds(max: number): { readonly numbers: readonly number[]; readonly comma: number } {
    const comma = this.engine.model.tokenize(',');
    if (comma.length !== 1) throw new ChatError('server', `the local model writes a comma as ${comma.length} tokens; a compact answer needs one`);
    return { numbers: [...this.numberTokenList(max)], comma: comma[0]! };
  }

  private tokenizePrompt(wrapper: EngineSlot['chat']['chatWrapper'], history: ChatHistoryItem[]): Token[] {
    return wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(this.engine.model.tokenizer);
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    if (signal.aborted) throw aborted();
    const grammar = await this.grammarFor(request);
    const key = promptKey(request.messages);
    const slot = await this.engine.acquire(key, signal);
    try {
      return await this.generate(slot, request, grammar, key, signal);
    } catch (err) {
      if (signal.aborted || (err instanceof ChatError && err.kind === 'aborted')) throw aborted();
      if (err instanceof ChatError) throw err;
      // The sequence may hold a half-evaluated prompt: start it afresh next time.
      slot.held = null;
      throw new ChatError('server', `the local model failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.engine.release(slot);
    }
  }

  /** Evaluate `messages` into up to `count` sequences (a system prompt before the first decision). */
  async warm(messages: readonly ChatMessage[], count: number): Promise<void> {
    const request: ChatRequest = { messages, temperature: 0, maxTokens: 1 };
    await Promise.all(Array.from({ length: Math.min(count, this.engine.sequences) }, () => this.complete(request, new AbortController().signal)));
  }

  private async generate(slot: EngineSlot, request: ChatRequest, grammar: Awaited<ReturnType<LlamaChatClient['grammarFor']>>, key: string, signal: AbortSignal): Promise<ChatResponse> {
    const started = performance.now();
    if (!this.prefixReuse) await this.engine.step(slot, 0, () => slot.sequence.clearHistory(), signal);
    const history = toHistory(request.messages);
    const prompt = this.tokenizePrompt(slot.chat.chatWrapper, history);
    const room = slot.sequence.contextSize - prompt.length;
    if (room < 1) {
      throw new ChatError('http', `the prompt is ${prompt.length} tokens, and the local model's context holds ${slot.sequence.contextSize} with its answer`, 413);
    }
    const scored = this.scores(request);
    const priors = scored ? (this.calibrate ? await this.priorsFor(slot, request, signal) : UNIFORM_PRIORS) : null;
    // The prompt's fixed part (the system prompt) is not evaluated again where the sequence
    // holds all of it, evaluated alike (reusedTokens); the situation always is, in the same
    // batches, so one prompt gives the same probabilities whatever the sequence held before
    // (llama.cpp's sums depend on the batch: reusing more made one situation's answer flip
    // between 1,2 and 3,3).
    const fixed = this.fixedPrefix(slot, request, prompt);
    const reused = reusedTokens(slot, prompt, fixed);
    // Whatever happens next, the sequence no longer holds what it held.
    slot.held = null;
    await this.evaluatePrompt(slot, prompt, reused, signal, fixed);
    const answer =
      request.numberList && !request.responseFormat
        ? compactAnswer(
            priors
              ? await this.scoredNumbers(slot, prompt, request.numberList, priors, signal)
              : await this.numberList(slot, prompt, request.numberList, request.temperature, seedOf(request), signal),
          )
        : await this.freeAnswer(slot, history, request, grammar, signal);
    if (signal.aborted) throw aborted();
    slot.held = key;
    this.lastCall = {
      evaluatedTokens: prompt.length - reused,
      promptTokens: prompt.length,
      completionTokens: answer.completionTokens,
      ms: performance.now() - started,
    };
    return { text: answer.text, promptTokens: prompt.length, completionTokens: answer.completionTokens, model: this.model };
  }

  /**
   * Evaluate the prompt but its last token (what generation starts from) in pieces, each a
   * step of its own (other requests' steps go between them), looking at `signal` between
   * them; what the sequence held past `reused` is erased first.
   */
  private async evaluatePrompt(slot: EngineSlot, prompt: readonly Token[], reused: number, signal: AbortSignal, fixed = 0): Promise<void> {
    const held = slot.sequence.nextTokenIndex;
    if (reused < held) await this.engine.step(slot, 0, () => slot.sequence.eraseContextTokenRanges([{ start: reused, end: held }]), signal);
    // The fixed part and the rest are batched apart, so each is evaluated alike every time.
    if (reused === 0) slot.fixedEnd = fixed;
    const end = prompt.length - 1;
    const parts = reused < fixed && fixed < end ? [[reused, fixed], [fixed, end]] : [[reused, end]];
    for (const [from, to] of parts) {
      for (let start = from!; start < to!; start += PROMPT_PIECE_TOKENS) {
        if (signal.aborted) throw aborted();
        const piece = prompt.slice(start, Math.min(start + PROMPT_PIECE_TOKENS, to!));
        await this.engine.step(slot, piece.length, () => slot.sequence.evaluateWithoutGeneratingNewTokens(piece), signal);
      }
    }
    if (signal.aborted) throw aborted();
  }

  /**
   * Tokens of the prompt that are the same for its system prompt over any situation: up to
   * where a situation's text begins. Every sequence evaluates them apart from the rest and in
   * the same pieces, so each holds the same sums for them whatever it evaluated first. Measured
   * against the content-free state alone, the part ran into the text the state shares with a
   * prompt ("Agent 1:"), so the sequences warmed at loading had evaluated the system prompt's
   * last piece three tokens longer than the others, and read a terse prompt's numbers up to
   * 0.011 apart from them: 3 of 26 tournament episodes, their decisions spread over 16
   * sequences, ended otherwise than when played again (test/llm/local.test.ts holds every
   * sequence to the same reads).
   */
  private fixedPrefix(slot: EngineSlot, request: ChatRequest, prompt: readonly Token[]): number {
    const system = request.messages[0];
    if (!system || system.role !== 'system') return 0;
    let known = this.fixedPrefixes.get(system.content);
    if (!known) {
      // Two content-free states that begin with other words: their common start ends before any situation's text.
      const state = (content: string) => this.tokenizePrompt(slot.chat.chatWrapper, toHistory([system, { role: 'user', content }]));
      const free = state(contentFreeState(1));
      known = { free, length: commonStart(free, state(contentFreeState(0))) };
      this.fixedPrefixes.set(system.content, known);
    }
    return Math.min(known.length, commonStart(prompt, known.free));
  }

  /**
   * An answer decoded token by token under the request's grammar (JSON), stopping once it is
   * whole: one step, as long as the answer's token bound (the proxy bounds every request's).
   */
  private async freeAnswer(
    slot: EngineSlot,
    history: ChatHistoryItem[],
    request: ChatRequest,
    grammar: Awaited<ReturnType<LlamaChatClient['grammarFor']>>,
    signal: AbortSignal,
  ): Promise<{ text: string; completionTokens: number }> {
    // A JSON answer is whole once its object is closed: stop there rather than sample the end tokens.
    const whole = wholeAnswer(request);
    const stop = new AbortController();
    let text = '';
    let completionTokens = 0;
    const generate = () => slot.chat.generateResponse(history, {
      ...(grammar ? { grammar } : {}),
      ...(request.maxTokens ? { maxTokens: request.maxTokens } : {}),
      temperature: request.temperature,
      seed: seedOf(request),
      // Stopping keeps the answer so far; the caller's abort is told apart by the caller.
      signal: AbortSignal.any([signal, stop.signal]),
      stopOnAbortSignal: true,
      onToken: (tokens) => {
        completionTokens += tokens.length;
      },
      onTextChunk: (chunk) => {
        text += chunk;
        if (whole?.(text)) stop.abort();
      },
    });
    const result = await this.engine.step(slot, request.maxTokens ?? slot.sequence.contextSize, generate, signal);
    return { text: result.response, completionTokens };
  }

  /**
   * A compact answer ("1,3"), a number at a time: each is sampled from the number tokens
   * only, then fed with the comma that must follow it in one batch. The commas are never
   * sampled, so n numbers cost n model steps where free decoding costs 2n - 1 (3 for "1,3":
   * 121 against 162 ms a decision on 2 threads, one sequence, the same answers).
   * Only numbers are sampled because a logit bias lifts them above every other token. A
   * numbers-only grammar does the same, but llama.cpp then tests each of the vocabulary's
   * 262k tokens against it, since this model never wants a number first: 97 against 118 ms
   * a decision, with the same 120 answers to 120 recorded situations (one sequence, 2 threads).
   */
  private async numberList(
    slot: EngineSlot,
    prompt: readonly Token[],
    list: { readonly count: number; readonly max: number },
    temperature: number,
    seed: number,
    signal: AbortSignal,
  ): Promise<number[]> {
    const { model } = this.engine;
    const tokenBias = await this.numbersBias(list.max);
    const comma = model.tokenize(',');
    // evaluatePrompt left only the last token to evaluate, with the first number sampled after it.
    const input = prompt.slice(slot.sequence.nextTokenIndex);
    const tokens = slot.sequence.evaluate(input, { tokenBias, temperature, seed });
    const numbers: number[] = [];
    try {
      // Each number is a step of its own.
      let next = await this.engine.step(slot, input.length, () => tokens.next(), signal);
      for (;;) {
        if (signal.aborted) throw aborted();
        const text = next.done ? '' : model.detokenize([next.value]);
        const number = Number(text);
        if (next.done || !Number.isInteger(number) || number < 1 || number > list.max) {
          throw new ChatError('server', `the local model answered ${JSON.stringify(text)} where a number 1-${list.max} was due`);
        }
        numbers.push(number);
        if (numbers.length === list.count) return numbers;
        const fed = [next.value, ...comma];
        next = await this.engine.step(slot, fed.length, () => tokens.next(fed), signal);
      }
    } finally {
      await tokens.return();
    }
  }

  /**
   * A compact answer read from the model's probabilities, no sampling: after the prompt,
   * the probability of each number token (a bias holds the model to them, top-k keeps only
   * them, so the list is short), divided by its prior; the best is fed with its comma and
   * the next agent's read the same way. One evaluation per agent; the same prompt always
   * gives the same answer.
   */
  private async scoredNumbers(
    slot: EngineSlot,
    prompt: readonly Token[],
    list: { readonly count: number; readonly max: number },
    priors: Map<string, number[]>,
    signal: AbortSignal,
  ): Promise<number[]> {
    const comma = this.engine.model.tokenize(',');
    const numberTokensList = this.numberTokenList(list.max);
    // The sequence holds the prompt but its last token, then each number chosen and its comma.
    return scoreNumberList(
      list.count,
      (chosen) => {
        if (signal.aborted) throw aborted();
        const input = chosen.length === 0 ? prompt.slice(slot.sequence.nextTokenIndex) : [numberTokensList[chosen[chosen.length - 1]! - 1]!, ...comma];
        return this.numberProbabilities(slot, input, list.max, signal);
      },
      async (chosen) => priors.get(chosen.join(',')) ?? [],
    );
  }

  /** Evaluate `input` and read the probabilities of the numbers 1 to `max` after it, in one step. */
  private async numberProbabilities(slot: EngineSlot, input: readonly Token[], max: number, signal: AbortSignal): Promise<number[]> {
    const tokenBias = await this.numbersBias(max);
    const last = input.length - 1;
    const items = input.map((token, i) => (i < last ? token : ([token, { generateNext: { probabilities: true, options: { tokenBias, topK: max, temperature: 1 } } }] as const)));
    const out = await this.engine.step(slot, input.length, () => slot.sequence.controlledEvaluate(items as Parameters<typeof slot.sequence.controlledEvaluate>[0]), signal);
    const probabilities = out[last]?.next.probabilities;
    if (!probabilities) throw new ChatError('server', 'the local model gave no probabilities for the answer');
    return this.numberTokenList(max).map((token) => probabilities.get(token) ?? 0);
  }

  /** The number tokens 1 to `max`, tokenised once (every scored answer reads them twice per agent). */
  private numberTokenList(max: number): Token[] {
    let tokens = this.numberTokenLists.get(max);
    if (!tokens) {
      tokens = numberTokens((text) => this.engine.model.tokenize(text), max);
      this.numberTokenLists.set(max, tokens);
    }
    return tokens;
  }

  /**
   * The number priors under a request's system prompt, measured once on the content-free
   * state: the first agent's, then each later agent's after every choice before it. The
   * slot ends holding the system prompt, which the request's own prompt then reuses.
   */
  private async priorsFor(slot: EngineSlot, request: ChatRequest, signal: AbortSignal): Promise<Map<string, number[]>> {
    const system = request.messages[0]?.content ?? '';
    const known = this.priors.get(system);
    if (known) return known;
    const list = request.numberList!;
    const free = this.tokenizePrompt(slot.chat.chatWrapper, toHistory([request.messages[0]!, { role: 'user', content: contentFreeState(list.count) }]));
    const fixed = this.fixedPrefix(slot, request, free);
    const reused = reusedTokens(slot, free, fixed);
    slot.held = null;
    await this.evaluatePrompt(slot, free, reused, signal, fixed);
    const priors = new Map<string, number[]>();
    const comma = this.engine.model.tokenize(',');
    const numberTokensList = this.numberTokenList(list.max);
    // Breadth first over earlier choices: each prefix is evaluated from the content-free state.
    const base = slot.sequence.nextTokenIndex;
    priors.set('', await this.numberProbabilities(slot, free.slice(base), list.max, signal));
    const afterState = slot.sequence.nextTokenIndex;
    const prefixes: number[][] = Array.from({ length: list.max }, (_, i) => [i + 1]);
    while (prefixes.length > 0) {
      const prefix = prefixes.shift()!;
      if (prefix.length >= list.count) continue;
      if (signal.aborted) throw aborted();
      const end = slot.sequence.nextTokenIndex;
      await this.engine.step(slot, 0, () => slot.sequence.eraseContextTokenRanges([{ start: afterState, end }]), signal);
      const input = prefix.flatMap((n) => [numberTokensList[n - 1]!, ...comma]);
      priors.set(prefix.join(','), await this.numberProbabilities(slot, input, list.max, signal));
      if (prefix.length + 1 < list.count) for (let n = 1; n <= list.max; n++) prefixes.push([...prefix, n]);
    }
    this.priors.set(system, priors);
    return priors;
  }

  /** The bias that lets only the numbers 1 to `max` be sampled, made once. */
  private async numbersBias(max: number): Promise<TokenBias> {
    let bias = this.numberBiases.get(max);
    if (!bias) {
      const { model } = this.engine;
      const { TokenBias } = await import('node-llama-cpp');
      bias = new TokenBias(model.tokenizer);
      for (const token of this.numberTokenList(max)) bias.set(token, { logit: NUMBER_LOGIT_BIAS });
      this.numberBiases.set(max, bias);
    }
    return bias;
  }

  private async grammarFor(request: ChatRequest) {
    if (request.responseFormat) {
      const schema = boundStrings(request.responseFormat.json_schema.schema, stringBound(this.maxStringLength, request.maxTokens));
      // (The schema is the request's, whole JSON Schema; node-llama-cpp's types want a literal one.)
      return this.engine.grammar(`json:${JSON.stringify(schema)}`, (llama) => llama.createGrammarForJsonSchema(schema as GbnfJsonSchema as never));
    }
    return undefined;
  }
}
