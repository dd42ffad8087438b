/**
 * Figures of the embedded local engine for `npm run bench`: load time and memory, prompt
 * and generation speed, and the latency and validity of decisions (compact and json, each
 * cold and with the system prompt's state reused). Node only.
 */
import { type LlmBenchRow, sampleWorlds } from './bench';
import { parseAnswer } from './answer';
import type { ChatRequest } from './chat';
import { percentile } from '../stats';
import { LlamaChatClient } from './llamaClient';
import { localThreads, openLocalClient } from './node';
import { type AnswerFormat, buildRequest, systemPrompt } from './prompt';
import type { LocalLlmSettings } from './settings';
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

/** Prompt evaluation and generation speed on one sequence, in tokens per second. */
async function throughput(client: LlamaChatClient): Promise<{ prompt: number; generation: number }> {
  const { engine } = client;
  const slot = await engine.acquire('', new AbortController().signal);
  try {
    // Both system prompts: about 1000 tokens, within a sequence's context with room to generate.
    const tokens = engine.model.tokenize(`${systemPrompt('json')}\n${systemPrompt('compact')}`).slice(0, Math.max(64, slot.sequence.contextSize - 64));
    await slot.sequence.clearHistory();
    let t = performance.now();
    await slot.sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, -1));
    const prompt = (tokens.length - 1) / ((performance.now() - t) / 1000);
    let generated = 0;
    t = performance.now();
    for await (const token of slot.sequence.evaluate(tokens.slice(-1), { temperature: 0 })) {
      void token;
      if (++generated >= 48) break;
    }
    return { prompt, generation: generated / ((performance.now() - t) / 1000) };
  } finally {
    slot.held = null;
    await slot.sequence.clearHistory();
    engine.release(slot);
  }
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
  return { rows, client };
}
