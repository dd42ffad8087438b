/**
 * Figures of the embedded local engine for `npm run bench`: load time and memory, prompt
 * and generation speed, and the latency and validity of decisions (compact and json, each
 * cold and with the system prompt's state reused). Node only.
 */
import { type LlmBenchRow, sampleWorlds } from './strategist';
import { parseAnswer } from '../llm/answer';
import type { ChatRequest } from '../llm/chat';
import { percentile } from '../stats';
import { LlamaChatClient } from '../llm/node/llamaClient';
import { type EngineSlot, GRAMMAR_CACHE_SIZE, collect } from '../llm/node/localEngine';
import { localThreads, openLocalClient } from '../llm/node';
import { type AnswerFormat, buildRequest, systemPrompt } from '../llm/prompt';
import type { LocalLlmSettings } from '../llm/settings';
import { LOCAL_MODELS, ggufModelName, engineModelPath, namedAdapterPath, shippedAdapterPath } from '../llm/localModels';
import { basename, dirname, join } from 'node:path';
import { teamSituation } from '../sim';

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

/** Decision requests from sampled situations, both teams, in the format given. */
function decisionRequests(format: AnswerFormat, count: number): ChatRequest[] {
  return sampleWorlds(count).map((s) => buildRequest(teamSituation(s.world, s.team), s.current, { format, temperature: 0.1 }));
}

/** Latencies (ms) and the share of valid answers of sequential decisions on `client`. */
async function decide(client: LlamaChatClient, requests: readonly ChatRequest[], budgetMs: number): Promise<{ ms: number[]; valid: number }> {
  const ms: number[] = [];
  let valid = 0;
  const start = performance.now();
  for (const request of requests) {
    if (ms.length >= 8 && performance.now() - start > budgetMs) break;
    const t = performance.now();
    const answer = await client.complete(request, new AbortController().signal);
    ms.push(performance.now() - t);
    if (parseAnswer(answer.text, 2).ok) valid++;
  }
  return { ms, valid };
}

/** Both system prompts: about 1000 tokens of the model's own text, to evaluate. */
const benchText = () => `${systemPrompt('json')}\n${systemPrompt('compact')}`;

/** Run `measure` on a sequence of its own, emptied before and after, as one step of the engine (nothing else runs meanwhile). */
async function onEmptySequence<T>(client: LlamaChatClient, measure: (sequence: EngineSlot['sequence']) => Promise<T>): Promise<T> {
  const signal = new AbortController().signal;
  const slot = await client.engine.acquire('', signal);
  try {
    return await client.engine.step(slot, 0, async () => {
      await slot.sequence.clearHistory();
      return measure(slot.sequence);
    }, signal);
  } finally {
    slot.held = null;
    await slot.sequence.clearHistory();
    client.engine.release(slot);
  }
}

/** Prompt evaluation and generation speed on one sequence, in tokens per second. */
function throughput(client: LlamaChatClient): Promise<{ prompt: number; generation: number }> {
  return onEmptySequence(client, async (sequence) => {
    // Within a sequence's context, with room to generate.
    const tokens = client.engine.model.tokenize(benchText()).slice(0, Math.max(64, sequence.contextSize - 64));
    let t = performance.now();
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, -1));
    const prompt = (tokens.length - 1) / ((performance.now() - t) / 1000);
    let generated = 0;
    t = performance.now();
    for await (const token of sequence.evaluate(tokens.slice(-1), { temperature: 0 })) {
      void token;
      if (++generated >= 48) break;
    }
    return { prompt, generation: generated / ((performance.now() - t) / 1000) };
  });
}

/** Batch sizes of `evaluationCost`: a token alone, a few, a terse decision's (about 24), a compact one's. */
const EVALUATED_TOKENS = [1, 8, 24, 64] as const;

/**
 * What a decision's evaluation costs by the tokens it evaluates, after a 500-token prompt
 * held (as the system prompt is): the median of 5 of each, in ms. Where a decision's time
 * goes: at these sizes llama.cpp's CPU kernels pay for every token, unlike a long prompt's batches.
 */
function evaluationCost(client: LlamaChatClient): Promise<{ tokens: number; ms: number }[]> {
  return onEmptySequence(client, async (sequence) => {
    const tokens = client.engine.model.tokenize(benchText()).slice(0, 500 + EVALUATED_TOKENS[EVALUATED_TOKENS.length - 1]!);
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, 500));
    const costs: { tokens: number; ms: number }[] = [];
    for (const n of EVALUATED_TOKENS) {
      const ms: number[] = [];
      for (let i = 0; i < 5; i++) {
        await sequence.eraseContextTokenRanges([{ start: 500, end: sequence.nextTokenIndex }]);
        const t = performance.now();
        await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(500, 500 + n));
        ms.push(performance.now() - t);
      }
      costs.push({ tokens: n, ms: percentile([...ms].sort((a, b) => a - b), 50, 'nearest-rank') });
    }
    return costs;
  });
}

/** Distinct JSON schemas a client may send the proxy, each its own grammar. */
const DISTINCT_SCHEMAS = 300;

/** A schema of 40 fields, each a list of 12 choices (a few KB, within the proxy's bounds), distinct by `n`. */
function largeSchema(n: number): unknown {
  const properties: Record<string, unknown> = {};
  for (let p = 0; p < 40; p++) properties[`field${p}_${n}`] = { type: 'array', items: { enum: Array.from({ length: 12 }, (_, e) => `value${e}x${p}`) }, maxItems: 4 };
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** Resident MiB once the collector has run and freed what it finalizes (native buffers go after it). */
async function settledRssMiB(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return rssMiB();
}

/** The grammars held and the memory added after DISTINCT_SCHEMAS distinct schemas' grammars are made. */
async function grammarRows(client: LlamaChatClient): Promise<LlmBenchRow[]> {
  const { engine } = client;
  const before = await settledRssMiB();
  for (let n = 0; n < DISTINCT_SCHEMAS; n++) {
    const schema = largeSchema(n);
    await engine.grammar(`json:${JSON.stringify(schema)}`, (llama) => llama.createGrammarForJsonSchema(schema as never));
  }
  const after = await settledRssMiB();
  return [
    { name: `local grammars held after ${DISTINCT_SCHEMAS} distinct schemas`, value: engine.grammars.size, unit: 'grammars', target: GRAMMAR_CACHE_SIZE, lowerIsBetter: true },
    { name: `local resident memory added by ${DISTINCT_SCHEMAS} distinct schemas`, value: after - before, unit: 'MiB' },
  ];
}

/** The process's resident memory now, against the 1 GiB target. */
export function residentRow(what: string): LlmBenchRow {
  return { name: `resident memory ${what}`, value: rssMiB(), unit: 'MiB', target: 1024, lowerIsBetter: true };
}

/** The engine's own figures; the engine stays open for the caller's match figures, returned with them. */
export async function benchLocalEngine(settings: LocalLlmSettings, seconds: number): Promise<{ rows: LlmBenchRow[]; client: LlamaChatClient }> {
  const before = rssMiB();
  const opened = performance.now();
  const client = await openLocalClient(settings);
  const readyMs = performance.now() - opened;
  const loaded = rssMiB();
  const cold = new LlamaChatClient(client.engine, { prefixReuse: false });
  const budget = (seconds * 1000) / 4;
  const rows: LlmBenchRow[] = [
    { name: `local model: ${settings.model}, ${localThreads(settings)} thread(s), ${settings.sequences} sequences`, value: client.engine.sequences, unit: 'sequences' },
    { name: 'local model load (digest, binary, weights, context)', value: client.engine.loadMs, unit: 'ms' },
    ...(client.engine.digestMs !== null ? [{ name: 'local model digest check (sha256 of the GGUF)', value: client.engine.digestMs, unit: 'ms', target: 1000, lowerIsBetter: true }] : []),
    { name: 'local model ready (load + system prompt, 2 seq.)', value: readyMs, unit: 'ms' },
    { name: 'local model resident memory added by loading', value: loaded - before, unit: 'MiB' },
  ];
  const speed = await throughput(client);
  rows.push({ name: 'local prompt evaluation, one sequence', value: speed.prompt, unit: 'tokens/s' }, { name: 'local generation, one sequence', value: speed.generation, unit: 'tokens/s' });
  for (const { tokens, ms } of await evaluationCost(client)) {
    rows.push({ name: `local evaluation of ${tokens} new token(s) after 500, one sequence (median of 5)`, value: ms, unit: 'ms' });
  }
  for (const format of ['compact', 'json'] as const) {
    const requests = decisionRequests(format, 48);
    let answers = 0;
    let valid = 0;
    for (const [mode, c] of [['cold', cold], ['prefix reuse', client]] as const) {
      const run = await decide(c, requests, budget);
      answers += run.ms.length;
      valid += run.valid;
      const sorted = [...run.ms].sort((a, b) => a - b);
      const reuse = mode === 'prefix reuse';
      rows.push(
        { name: `local decision ${format}, ${mode}, p50 (${run.ms.length})`, value: sorted.length ? percentile(sorted, 50, 'nearest-rank') : 0, unit: 'ms' },
        { name: `local decision ${format}, ${mode}, p95`, value: sorted.length ? percentile(sorted, 95, 'nearest-rank') : 0, unit: 'ms', ...(reuse ? { target: 300, lowerIsBetter: true } : {}) },
      );
    }
    rows.push({ name: `local answers valid, ${format} (constrained, ${answers})`, value: (valid / Math.max(1, answers)) * 100, unit: '%', target: 99 });
  }
  rows.push(...(await grammarRows(client)));
  return { rows, client };
}

/** A client `alternately` asks, by the name its rows give it. */
interface AlternateRun {
  readonly name: string;
  readonly client: LlamaChatClient;
}

/** One client's decisions in `alternately`: their latencies (ms, ascending) and decisions per CPU-second. */
interface AlternateTiming {
  readonly name: string;
  readonly sorted: readonly number[];
  readonly perCpuSecond: number;
}

/**
 * The same decisions (in `format`) asked of each client in turn, one request each, so all see
 * the same load, with the CPU-seconds of this process (one thread) each one's took.
 */
async function alternately(format: AnswerFormat, runs: readonly AlternateRun[], budgetMs: number): Promise<AlternateTiming[]> {
  const timed = runs.map((run) => ({ ...run, ms: [] as number[], cpuMs: 0 }));
  const requests = decisionRequests(format, 48);
  // One decision each untimed: a client's first evaluates its system prompt where the engine's
  // sequences hold another (after the matches, 1.4 CPU-seconds, which made the default adapter
  // look a third dearer than the rules one over 24 decisions).
  for (const run of timed) await run.client.complete(requests[0]!, new AbortController().signal);
  const start = performance.now();
  for (const request of requests) {
    // At least 24 each: a p95 of 8 would be their largest.
    if (timed[0]!.ms.length >= 24 && performance.now() - start > budgetMs) break;
    for (const run of timed) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      await run.client.complete(request, new AbortController().signal);
      run.ms.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      run.cpuMs += (used.user + used.system) / 1000;
    }
  }
  return timed.map((run) => ({ name: run.name, sorted: [...run.ms].sort((a, b) => a - b), perCpuSecond: run.ms.length / (run.cpuMs / 1000) }));
}

const p50 = (t: AlternateTiming) => percentile(t.sorted, 50, 'nearest-rank');

/** A client's rows of `alternately`: p50, p95 and decisions per CPU-second, beside the product's targets where `targets`. */
function timingRows(format: AnswerFormat, t: AlternateTiming, targets: boolean): LlmBenchRow[] {
  return [
    { name: `local decision ${format}, ${t.name}, p50 (${t.sorted.length})`, value: p50(t), unit: 'ms', ...(targets ? { target: 100, lowerIsBetter: true } : {}) },
    { name: `local decision ${format}, ${t.name}, p95`, value: percentile(t.sorted, 95, 'nearest-rank'), unit: 'ms', ...(targets ? { target: 150, lowerIsBetter: true } : {}) },
    { name: `local decisions per CPU-second, ${format}, ${t.name}`, value: t.perCpuSecond, unit: 'decisions', ...(targets ? { target: 8 } : {}) },
  ];
}

/**
 * The decisions the product asks (the shipped adapter's format) on the file the engine runs
 * beside the same on the pulled model's whole vocabulary, alternately, and the resident
 * memory loading the whole one adds beside the engine.
 */
export async function vocabularyRows(settings: LocalLlmSettings, client: LlamaChatClient, budgetMs: number): Promise<LlmBenchRow[]> {
  const spec = settings.pulled ? LOCAL_MODELS[settings.pulled] : undefined;
  if (!spec?.derived || settings.gguf !== engineModelPath(spec, dirname(settings.gguf))) return [];
  const before = rssMiB();
  const whole = await openLocalClient({ ...settings, gguf: join(dirname(settings.gguf), spec.file), model: ggufModelName(spec.file), pulled: null });
  const wholeMiB = rssMiB() - before;
  try {
    const wholeName = `the whole vocabulary (${mb(spec.bytes)})`;
    const runs = [
      { name: `the strategist's vocabulary (${mb(spec.derived.bytes)})`, client },
      { name: wholeName, client: whole },
    ];
    const memory: LlmBenchRow = { name: `local model resident memory added by loading ${wholeName}`, value: wholeMiB, unit: 'MiB' };
    return [memory, ...(await alternately(settings.format, runs, budgetMs)).flatMap((t, i) => timingRows(settings.format, t, i === 0))];
  } finally {
    await whole.engine.dispose();
  }
}

/** How much slower the default adapter's median decision may be than another's on the same file: the noise of a busy machine. */
const ADAPTER_LATENCY_RATIO = 1.1;

/**
 * The decisions the product asks with the default adapter beside the same with each adapter
 * shipped beside it (llm:adapter=<name>), alternately on the same file: a newly taught adapter
 * must decide no slower than the one it replaced, and the ratio of their medians says whether it does.
 */
export async function adapterRows(settings: LocalLlmSettings, client: LlamaChatClient, budgetMs: number): Promise<LlmBenchRow[]> {
  const spec = settings.pulled ? LOCAL_MODELS[settings.pulled] : undefined;
  if (!spec || settings.adapter === null || settings.adapter !== shippedAdapterPath(spec)) return [];
  const rows: LlmBenchRow[] = [];
  for (const name of Object.keys(spec.otherAdapters ?? {})) {
    const path = namedAdapterPath(spec, name)!;
    const other = await openLocalClient({ ...settings, adapter: path });
    try {
      const runs = [
        { name: `the default adapter (${basename(settings.adapter)}) beside adapter=${name}`, client },
        { name: `adapter=${name} (${basename(path)})`, client: other },
      ];
      const [mine, theirs] = await alternately(settings.format, runs, budgetMs);
      rows.push(...timingRows(settings.format, mine!, false), ...timingRows(settings.format, theirs!, false), {
        name: `local decision ${settings.format}, p50 of the default adapter over adapter=${name}'s`,
        value: p50(mine!) / p50(theirs!),
        unit: 'x',
        target: ADAPTER_LATENCY_RATIO,
        lowerIsBetter: true,
      });
    } finally {
      await other.engine.dispose();
    }
  }
  return rows;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
