/**
 * The embedded local engine: llama.cpp in this process (node-llama-cpp, its CPU build) on
 * one GGUF file, loaded once and shared by every match of the process. Its context holds
 * several sequences, one per request in flight (tournament episodes, the page's two teams,
 * the proxy's clients), but evaluates one step of one request at a time (evaluationTurns.ts
 * says whose): tokens of two sequences evaluated in one batch come out with other sums, so
 * an answer would depend on what else was asked at that moment (60 exam situations, two at
 * a time: 13 to 22 got other probabilities, up to 0.012 apart, and one decision in about 180
 * flipped over 40 tournament games; one at a time, all were bit-identical whatever sequence
 * and neighbour). Shared batches bought nothing measurable: 4.1 decisions/s four at once
 * against 4.0 one at a time, on one thread. Each sequence keeps its own cache (node-llama-cpp
 * gives each its own stream), so steps of other requests between a request's steps change
 * nothing in it. A sequence keeps what it last evaluated, and a request goes to the
 * sequence holding the longest start of its prompt, so the system prompt is not evaluated
 * again (llamaClient.ts evaluates the situation afresh every time, for the same reason: sums
 * that depend on the batch). Node only: node-llama-cpp is loaded when an engine starts
 * (llamaClient.ts turns chat requests into steps on it).
 */
import { existsSync, statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Llama, LlamaChat, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { ChatError } from '../chat';
import { sha256File } from './digest';
import { EvaluationTurns, type TurnTaker } from '../evaluationTurns';
import { LruMap } from '../lruMap';

export interface LocalEngineOptions {
  readonly gguf: string;
  /** The model's name in summaries and the decision cache. */
  readonly model: string;
  readonly threads: number;
  readonly sequences: number;
  /** Tokens per sequence. */
  readonly contextSize: number;
  /** What to do about a missing or damaged file, for errors. */
  readonly help: string;
  /**
   * The file's pinned sha256 (a pulled model): the file is hashed before it loads, and
   * refused when its bytes differ (digest.ts says what that costs and why it is not cached).
   */
  readonly sha256?: string;
  /** A LoRA adapter (GGUF) applied to the model in every sequence (npm run llm:tune makes them). */
  readonly adapter?: string;
}

/** The GGUF file is missing, damaged or not a model: the file and what to do. */
export class LocalModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalModelError';
  }
}

/** One sequence of the context and the chat that generates on it; its request's account of turns while it is held. */
export interface EngineSlot extends TurnTaker {
  readonly sequence: LlamaContextSequence;
  readonly chat: LlamaChat;
  /** The prompt it holds evaluated (its messages' texts, as promptKey gives); null when unknown. */
  held: string | null;
  /** Where the system prompt's part it holds was cut from the rest when evaluated (llamaClient.ts fixedPrefix); null before any. */
  fixedEnd: number | null;
  busy: boolean;
  lastUsed: number;
  /** When its request took it (TurnTaker). */
  begun: number;
}

/** A request's prompt as a string to compare with what a sequence holds: its messages' texts in order. */
export function promptKey(messages: readonly { readonly content: string }[]): string {
  return messages.map((m) => m.content).join('\u0000');
}

/** The number of leading characters `a` and `b` share. */
export function sharedPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * The free slot to evaluate `prompt` on: the one holding the longest start of it; among
 * equals, one that holds nothing, then the least recently used (so what others hold
 * survives longest). Undefined when none is free.
 */
export function pickSlot<S extends Pick<EngineSlot, 'held' | 'busy' | 'lastUsed'>>(slots: readonly S[], prompt: string): S | undefined {
  const age = (slot: S) => (slot.held === null ? -1 : slot.lastUsed);
  let best: S | undefined;
  let bestShared = -1;
  for (const slot of slots) {
    if (slot.busy) continue;
    const shared = slot.held === null ? 0 : sharedPrefixLength(slot.held, prompt);
    if (shared > bestShared || (shared === bestShared && age(slot) < age(best!))) {
      best = slot;
      bestShared = shared;
    }
  }
  return best;
}

interface Waiter {
  readonly prompt: string;
  readonly resolve: (slot: EngineSlot) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
}

/**
 * Every generation makes a sampler whose vocabulary-sized buffer (3 MB for Gemma 3's 262k
 * tokens) node-llama-cpp frees only when the garbage collector finalizes it. V8 does not
 * see that memory, so it collects too rarely: a tournament's process grew by 400 MB a minute
 * (6.6 GB after 10 minutes of bt vs llm). A full collection every so many generations keeps
 * it flat (1.1 GB after 576 decisions on 16 sequences, 8 at once) for a few ms each time.
 */
export const GENERATIONS_PER_COLLECTION = 64;

let collectGarbage: (() => void) | null = null;

/** A full garbage collection (the flag is set once, at the first call). */
export function collect(): void {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
}

/**
 * Compiled grammars an engine keeps (the json format's schemas), each holding native memory
 * V8 does not see. When none was dropped, 300 distinct schemas sent to the proxy were seen to
 * add about 770 MiB, and making the grammars of 300 schemas of 40 fields added 47 MiB here
 * (3 MiB with this bound: npm run bench -- --only local-llm). The product asks a handful
 * (one schema per team size and skill set), so 16 keeps them all.
 */
export const GRAMMAR_CACHE_SIZE = 16;

/**
 * Grammars made once per key (compiling one costs more than a decision), the least recently
 * used dropped past `capacity` (a dropped grammar's memory is freed once no generation holds it).
 */
export class GrammarCache<G> {
  private readonly grammars: LruMap<string, Promise<G>>;

  constructor(capacity: number = GRAMMAR_CACHE_SIZE) {
    this.grammars = new LruMap(capacity);
  }

  /** Grammars held now. */
  get size(): number {
    return this.grammars.size;
  }

  /** Grammars dropped to stay within the capacity. */
  get evictions(): number {
    return this.grammars.evictions;
  }

  /** The grammar of `key`, made by `make` where none is held; a failed one is forgotten. */
  get(key: string, make: () => Promise<G>): Promise<G> {
    let grammar = this.grammars.get(key);
    if (!grammar) {
      const made = make();
      made.catch(() => {
        if (this.grammars.peek(key) === made) this.grammars.delete(key);
      });
      this.grammars.set(key, made);
      grammar = made;
    }
    return grammar;
  }
}

/**
 * Attention computed without llama.cpp's flash-attention kernel. On the CPU that kernel
 * splits a single token's attention over the threads and adds the parts, so its sums, and
 * answers, depend on the thread count: the same 10 decisions read other number probabilities
 * in 18 of 20 reads at LLM_THREADS=1 and 2 (up to 0.012 apart), and a lockstep match ended
 * with another state hash. Without it every read was bit-identical at 1 and 2 threads, and so
 * was the match, at the same speed (10 decisions in 10.1 s with it and without it, one
 * thread), so the same seed gives the same match on any number of threads (docs/llm.md). (node-llama-cpp turns the kernel on by
 * default where the model allows it.)
 */
const EXACT_ATTENTION = true;

export class LocalEngine {
  /** The grammars of the requests' schemas (llamaClient.ts), bounded. */
  readonly grammars = new GrammarCache<LlamaGrammar>();
  private readonly waiting: Waiter[] = [];
  /** Whose step is evaluated next. */
  private readonly turns = new EvaluationTurns();
  private uses = 0;
  private generations = 0;

  private constructor(
    readonly options: LocalEngineOptions,
    readonly llama: Llama,
    readonly model: LlamaModel,
    readonly context: LlamaContext,
    private readonly slots: EngineSlot[],
    /** Milliseconds from the call to a ready context (digest, binary, weights, context). */
    readonly loadMs: number,
    /** Milliseconds spent hashing the file (null when it has no pinned digest). */
    readonly digestMs: number | null,
  ) {}

  /** Load the model and make its context; a missing or damaged file fails naming it and what to do. */
  static async load(options: LocalEngineOptions): Promise<LocalEngine> {
    const started = performance.now();
    if (!existsSync(options.gguf)) throw new LocalModelError(`the local model file ${options.gguf} does not exist: ${options.help}`);
    let digestMs: number | null = null;
    if (options.sha256 !== undefined) {
      const hashed = performance.now();
      const found = await sha256File(options.gguf);
      digestMs = performance.now() - hashed;
      if (found !== options.sha256) {
        throw new LocalModelError(`the local model file ${options.gguf} is damaged or changed: its sha256 is ${found}, not the pinned ${options.sha256}; ${options.help}`);
      }
    }
    const { GgufInsights, LlamaChat, LlamaLogLevel, getLlama, readGgufFileInfo } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const refuse = (why: string) =>
      new LocalModelError(`cannot load the local model file ${options.gguf}: it is damaged, incomplete or not a GGUF model (${why}); ${options.help}`);
    // Read the header first: a file that is no model, or is cut short, is told apart plainly.
    try {
      const info = await readGgufFileInfo(options.gguf);
      const needed = (info.infoEndOffset ?? 0) + (await GgufInsights.from(info, llama)).modelSize;
      const size = statSync(options.gguf).size;
      if (size < needed) throw new Error(`the file is cut short: ${size} bytes of the ${needed} its header describes`);
    } catch (err) {
      throw refuse((err as Error).message);
    }
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: options.gguf });
    } catch (err) {
      throw refuse((err as Error).message);
    }
    if (options.adapter !== undefined && !existsSync(options.adapter)) {
      await model.dispose();
      throw new LocalModelError(`the LoRA adapter ${options.adapter} does not exist: set LLM_ADAPTER=<path to a .gguf adapter>, or LLM_ADAPTER=none for the model alone`);
    }
    const context = await model.createContext({
      sequences: options.sequences,
      contextSize: options.contextSize,
      threads: options.threads,
      // Keep the whole window of sliding-window models (Gemma 3), so a prefix stays reusable.
      swaFullCache: true,
      // Answers independent of the thread count: see EXACT_ATTENTION.
      flashAttention: !EXACT_ATTENTION,
      ...(options.adapter !== undefined ? { lora: { adapters: [{ filePath: options.adapter }] } } : {}),
    }).catch(async (err: unknown) => {
      await model.dispose();
      if (options.adapter === undefined) throw err;
      throw new LocalModelError(`cannot apply the LoRA adapter ${options.adapter} to ${options.gguf}: ${(err as Error).message}; an adapter fits only the model it was tuned on (see its card)`);
    });
    const slots: EngineSlot[] = [];
    for (let i = 0; i < options.sequences; i++) {
      const sequence = context.getSequence();
      slots.push({ sequence, chat: new LlamaChat({ contextSequence: sequence }), held: null, fixedEnd: null, busy: false, lastUsed: 0, served: 0, begun: 0 });
    }
    return new LocalEngine(options, llama, model, context, slots, performance.now() - started, digestMs);
  }

  get name(): string {
    return this.options.model;
  }

  get sequences(): number {
    return this.slots.length;
  }

  /** The chat template every sequence's chat applies (one model, one template). */
  get chatWrapper(): EngineSlot['chat']['chatWrapper'] {
    return this.slots[0]!.chat.chatWrapper;
  }

  /** Tokens of one sequence: a prompt and its answer together. */
  get contextSize(): number {
    return this.slots[0]!.sequence.contextSize;
  }

  /** The number of tokens of `text` by the model's own tokenizer. */
  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  /** A grammar made once per key, kept while it is among the GRAMMAR_CACHE_SIZE most recently used. */
  grammar(key: string, make: (llama: Llama) => Promise<LlamaGrammar>): Promise<LlamaGrammar> {
    return this.grammars.get(key, () => make(this.llama));
  }

  /**
   * A free sequence for `prompt` (promptKey), the one holding the longest start of it
   * (pickSlot); where none is free, the first to be given back, first come first served.
   * Its request then evaluates on it step by step (step). Rejects when `signal` aborts.
   */
  acquire(prompt: string, signal: AbortSignal): Promise<EngineSlot> {
    if (signal.aborted) return Promise.reject(new ChatError('aborted', 'the call was aborted'));
    const slot = pickSlot(this.slots, prompt);
    if (slot) return Promise.resolve(this.take(slot));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        prompt,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new ChatError('aborted', 'the call was aborted'));
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /**
   * Run `work`, one evaluation on `slot`'s sequence costing about `cost` tokens, alone, when
   * its request's turn comes (evaluationTurns.ts): every evaluation of a request goes through
   * here. Rejects without running it when `signal` aborts while it waits.
   */
  step<T>(slot: EngineSlot, cost: number, work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    return this.turns.take(slot, cost, work, signal);
  }

  /** Give a sequence back (to the first request waiting, if any). */
  release(slot: EngineSlot): void {
    slot.busy = false;
    if (++this.generations % GENERATIONS_PER_COLLECTION === 0) collect();
    const next = this.waiting.shift();
    if (!next) return;
    next.signal.removeEventListener('abort', next.onAbort);
    next.resolve(this.take(pickSlot(this.slots, next.prompt)!));
  }

  private take(slot: EngineSlot): EngineSlot {
    slot.busy = true;
    slot.served = 0;
    slot.lastUsed = slot.begun = ++this.uses;
    return slot;
  }

  async dispose(): Promise<void> {
    for (const w of this.waiting.splice(0)) w.reject(new ChatError('aborted', 'the local model was closed'));
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}
