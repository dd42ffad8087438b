/**
 * The llm team on the embedded local model (Gemma 3 270M, pulled by npm run llm:pull): a
 * whole match with no settings, answers held to their format (a grammar, a logit bias), the model's
 * own token counts, the system prompt evaluated once per sequence, several sequences
 * sharing the model, and aborts. Never skipped in CI (it fails there without the model).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AnswerFormat, type ChatRequest, ChatError, type LlmConnection, buildRequest, parseAnswer, systemPrompt } from '../../src/llm';
import { type LlamaChatClient, PROMPT_PIECE_TOKENS } from '../../src/llm/node/llamaClient';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { runMatch, verifyReplay } from '../../src/match';
import { DEFAULT_CONFIG, type GameConfig, createWorld, idleAction, step, teamSituation } from '../../src/sim';
import type { SkillId } from '../../src/skills';
import { llmStrategistOf } from '../../src/teams';
import { describeWithLocalModel, requireLocalModel, watchNumberReads } from '../helpers/localModel';
import { testPlatform } from '../helpers/platform';
import { threePerTeam } from '../helpers/world';

/** Lockstep, so the wall clock (a busy machine) decides nothing; a generous timeout for the same reason. */
const ENV = { LLM_TIMING: 'lockstep', LLM_CACHE: 'off', LLM_TIMEOUT_MS: '60000', LLM_SEQUENCES: '2', LLM_THREADS: '1' };

/** Situations from a few moments of play, to ask about. */
function requests(format: AnswerFormat, count: number, config: GameConfig = DEFAULT_CONFIG, seed = 7): ChatRequest[] {
  const world = createWorld(seed, config);
  const out: ChatRequest[] = [];
  const current: SkillId[] = Array.from({ length: config.agent.perTeam }, () => 'navigate');
  while (out.length < count) {
    for (let i = 0; i < 60; i++) step(world, world.agents.map((a) => ({ ...idleAction(), move: 1, turn: Math.sin(world.tick / 30 + a.id), fire: 1 })));
    out.push(buildRequest(teamSituation(world, (out.length % 2) as 0 | 1), current, { format, temperature: 0.1, config }));
  }
  return out;
}

const signal = () => new AbortController().signal;

describeWithLocalModel('llm on the local model')('the llm team on the embedded local model', () => {
  let connection: LlmConnection;
  let client: LlamaChatClient;
  const platform = testPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec(ENV) }) });

  beforeAll(async () => {
    requireLocalModel();
    connection = await platform.llm.connect();
    client = connection.client as LlamaChatClient;
  }, 120_000);

  afterAll(async () => {
    // Where the last test failed before closing it.
    await platform.close();
  });

  it('with no model settings, plays a whole match against bt-scripted in lockstep, at least 90% of answers valid', async () => {
    expect(connection.provider).toMatch(/^local llama\.cpp \(CPU, 1 thread\)$/);
    expect(connection.inProcess).toBe(true);
    const config = { ...DEFAULT_CONFIG, episodeSeconds: 15 };
    const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: 5, config }, { platform });
    expect(match.done).toBe(true);
    const strategist = llmStrategistOf(match.controllers[0])!;
    const report = strategist.report();
    expect(report).toMatchObject({ model: expect.stringMatching(/^gemma-3-270m-q4_k_m-strategist\+strategist-gemma3-270m@[0-9a-f]{8}$/), provider: 'local llama.cpp (CPU, 1 thread)', cacheHits: 0, abandoned: 0 });
    // 2 Hz for 15 s, and events.
    expect(report.calls).toBeGreaterThanOrEqual(25);
    expect(report.answers / (report.answers + report.failed)).toBeGreaterThanOrEqual(0.9);
    // With the shipped adapter every call answers (its numbers are read, never generated), and
    // the choices follow the game: more than one answer over the match.
    expect(strategist.records.filter((r) => !r.ok).map((r) => r.reason)).toEqual([]);
    expect(new Set(strategist.records.map((r) => r.skills?.join(','))).size).toBeGreaterThan(1);
    // Counted by the model's tokenizer: every call's prompt holds at least the system prompt.
    expect(report.tokens.prompt).toBeGreaterThan(report.calls * client.engine.countTokens(systemPrompt('compact', 2, config)));
    expect(report.tokens.completion).toBeGreaterThanOrEqual(report.answers * 3);
    // The replay holds each decision that changed a skill, and reproduces the match without the model.
    const replay = match.replay();
    const changes = replay.decisions.filter((d) => d.source === 'llm').length;
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThanOrEqual(report.applied);
    expect(verifyReplay(replay).ok).toBe(true);
  }, 600_000);

  it.each([
    ['two', DEFAULT_CONFIG],
    ['three', threePerTeam()],
  ])('compact answers: the logit bias holds the model to one number 1-4 for each of %s agents', async (_, config) => {
    for (const request of requests('compact', 4, config)) {
      expect(request.numberList).toEqual({ count: config.agent.perTeam, max: 4 });
      const answer = await client.complete(request, signal());
      expect(answer.text).toMatch(new RegExp(`^[1-4](,[1-4]){${config.agent.perTeam - 1}}$`));
      expect(parseAnswer(answer.text, config.agent.perTeam)).toMatchObject({ ok: true, format: 'compact' });
      // The model's own count: the system and user text, and a few tokens of chat template.
      const text = client.engine.countTokens(request.messages[0]!.content) + client.engine.countTokens(request.messages[1]!.content);
      expect(answer.promptTokens).toBeGreaterThan(text);
      expect(answer.promptTokens).toBeLessThan(text + 24);
      expect(answer.completionTokens).toBeGreaterThanOrEqual(config.agent.perTeam * 2 - 1);
      expect(answer.model).toMatch(/^gemma-3-270m-q4_k_m-strategist\+strategist-gemma3-270m@/);
    }
  }, 300_000);

  it('json answers follow the schema: one skill name per agent and a rationale', async () => {
    // One request: a JSON answer with its rationale is some forty tokens, the slowest call there is.
    for (const request of requests('json', 1)) {
      const answer = await client.complete(request, signal());
      const parsed = parseAnswer(answer.text, 2);
      expect(parsed, answer.text).toMatchObject({ ok: true, format: 'json' });
      // The shipped adapter is taught compact answers only: its rationale is valid JSON text, not always words.
      expect(typeof (parsed.ok && parsed.rationale)).toBe('string');
    }
  }, 300_000);

  it('evaluates the system prompt once: a later decision evaluates only what differs from the last', async () => {
    const [first, second] = requests('compact', 2, DEFAULT_CONFIG, 11);
    await client.complete(first!, signal());
    await client.complete(second!, signal());
    const call = client.lastCall!;
    const system = client.engine.countTokens(systemPrompt('compact', 2));
    expect(call.promptTokens).toBeGreaterThan(system);
    // The system prompt is most of the prompt; the second call evaluated none of it.
    expect(call.evaluatedTokens).toBeGreaterThan(0);
    expect(call.evaluatedTokens).toBeLessThan(call.promptTokens - system + 8);
    expect(call.evaluatedTokens).toBeLessThan(call.promptTokens / 2);
  }, 300_000);

  it('concurrent decisions share the model on its sequences, waiting for one where all are busy', async () => {
    const batch = requests('compact', 5);
    expect(client.engine.sequences).toBe(2);
    const answers = await Promise.all(batch.map((r) => client.complete(r, signal())));
    for (const a of answers) expect(parseAnswer(a.text, 2).ok).toBe(true);
  }, 300_000);

  it('decisions asked at once hold their sequences together but are evaluated a step at a time, each read as it is read alone, bit for bit', async () => {
    // Distinct situations, so each prompt's reads are its own.
    const batch = [...new Map(requests('compact', 24, DEFAULT_CONFIG, 11).map((r) => [JSON.stringify(r.messages), r])).values()].slice(0, 16);
    expect(batch.length).toBeGreaterThanOrEqual(8);
    // Anything read once per model (an untuned model's priors) is read before counting.
    await client.complete(batch[0]!, signal());
    // What the model's probabilities were for each prompt (its first agent's, then its second's).
    const read = new Map<string, number[][]>();
    const scoring = client as unknown as { numberProbabilities: (slot: { held: string | null }, ...rest: unknown[]) => Promise<number[]> };
    const numberProbabilities = scoring.numberProbabilities.bind(client);
    const engine = client.engine;
    // The prompt each sequence is evaluating now.
    const asking = new Map<unknown, string>();
    scoring.numberProbabilities = async (slot, ...rest) => {
      const probabilities = await numberProbabilities(slot, ...rest);
      const prompt = asking.get(slot)!;
      read.set(prompt, [...(read.get(prompt) ?? []), probabilities]);
      return probabilities;
    };
    const [acquire, release, step] = [engine.acquire.bind(engine), engine.release.bind(engine), engine.step.bind(engine)];
    let holding = 0;
    let mostHeld = 0;
    let stepping = 0;
    let mostStepping = 0;
    engine.acquire = async (prompt, s) => {
      const slot = await acquire(prompt, s);
      mostHeld = Math.max(mostHeld, ++holding);
      asking.set(slot, prompt);
      return slot;
    };
    engine.release = (slot) => {
      holding--;
      release(slot);
    };
    engine.step = (slot, cost, work, s) =>
      step(slot, cost, async () => {
        mostStepping = Math.max(mostStepping, ++stepping);
        try {
          return await work();
        } finally {
          stepping--;
        }
      }, s);
    try {
      const alone: [string, number[][]][] = [];
      for (const r of batch) {
        read.clear();
        await client.complete(r, signal());
        alone.push(...read);
      }
      read.clear();
      // Two matches at once, each on its own sequence: their requests' steps interleave.
      await Promise.all([0, 1].map(async (half) => {
        for (const r of batch.filter((_, i) => i % 2 === half)) await client.complete(r, signal());
      }));
      expect(mostHeld).toBe(2);
      expect(mostStepping).toBe(1);
      expect(alone).toHaveLength(batch.length);
      for (const [prompt, probabilities] of alone) expect(read.get(prompt)).toEqual(probabilities);
    } finally {
      delete (client as unknown as { numberProbabilities?: unknown }).numberProbabilities;
      engine.acquire = acquire;
      engine.release = release;
      engine.step = step;
    }
  }, 300_000);

  it('a prompt reads the same probabilities on every sequence, warmed at loading or not, bit for bit', async () => {
    // Loading warms two sequences; a third evaluates the system prompt first with a decision.
    const access = nodeLlmAccess({ spec: parseLlmSpec({ ...ENV, LLM_SEQUENCES: '3' }) });
    const three = (await access.connect()).client as LlamaChatClient;
    const engine = three.engine as unknown as { slots: { busy: boolean }[] };
    const reads = watchNumberReads(three);
    /** The reads of `request` evaluated on sequence `k` (the others held busy meanwhile). */
    const readOn = async (k: number, request: ChatRequest) => {
      const others = engine.slots.filter((_, i) => i !== k);
      for (const s of others) s.busy = true;
      reads.take();
      try {
        await three.complete(request, signal());
      } finally {
        for (const s of others) s.busy = false;
      }
      return reads.take();
    };
    try {
      expect(engine.slots).toHaveLength(3);
      // The shipped adapter's terse format, where the warm-up's prompt ran past the system prompt in a longer piece than a decision's.
      for (const [i, request] of requests('terse', 4, DEFAULT_CONFIG, 13).entries()) {
        const onWarmed = await readOn(0, request);
        expect(onWarmed.length).toBeGreaterThan(0);
        // The third sequence last held another system prompt (three agents a team), which shares only its first words.
        if (i > 0) await readOn(2, requests('compact', 1, threePerTeam(), 13)[0]!);
        expect(await readOn(2, request)).toEqual(onWarmed);
        expect(await readOn(1, request)).toEqual(onWarmed);
      }
    } finally {
      await access.close();
    }
  }, 300_000);

  it('aborts: before a call, while it waits for a sequence, and while it runs; the model answers the next one', async () => {
    // Compact calls hold the sequences (a few tokens each); a JSON call is long enough to abort while it runs.
    const [a, b, c] = requests('compact', 3);
    const [d] = requests('json', 1);
    const gone = new AbortController();
    gone.abort();
    await expect(client.complete(a!, gone.signal)).rejects.toMatchObject({ kind: 'aborted' });

    // Two calls hold both sequences; a third waits, and is aborted there.
    const busy = [client.complete(a!, signal()), client.complete(b!, signal())];
    const waiting = new AbortController();
    const third = client.complete(c!, waiting.signal);
    waiting.abort();
    await expect(third).rejects.toBeInstanceOf(ChatError);
    await expect(third).rejects.toMatchObject({ kind: 'aborted' });
    await Promise.all(busy);

    const running = new AbortController();
    const call = client.complete(d!, running.signal);
    setTimeout(() => running.abort(), 20);
    await expect(call).rejects.toMatchObject({ kind: 'aborted' });

    const after = await client.complete(requests('compact', 1)[0]!, signal());
    expect(parseAnswer(after.text, 2).ok).toBe(true);
  }, 300_000);

  it('a call given up while its prompt is evaluated stops there: the rest of the prompt is never evaluated', async () => {
    const long = 'The blue team holds the north cover while the red team circles the south wall. '.repeat(36);
    const request: ChatRequest = { messages: [{ role: 'system', content: 'Answer in one word.' }, { role: 'user', content: long }], temperature: 0, maxTokens: 4 };
    // The user message alone is over three pieces, and the whole prompt fits the context.
    const total = client.engine.countTokens(long);
    expect(total).toBeGreaterThan(3 * PROMPT_PIECE_TOKENS);
    expect(total + 32).toBeLessThan(client.engine.options.contextSize);
    // The caller gives up as soon as the first piece of the prompt is in.
    const giveUp = new AbortController();
    let pieces = 0;
    let evaluated = -1;
    const engine = client.engine;
    const acquire = engine.acquire.bind(engine);
    const patched: { sequence: object }[] = [];
    engine.acquire = async (prompt, s) => {
      const slot = await acquire(prompt, s);
      const sequence = slot.sequence;
      const evaluate = sequence.evaluateWithoutGeneratingNewTokens.bind(sequence);
      sequence.evaluateWithoutGeneratingNewTokens = async (...args: Parameters<typeof evaluate>) => {
        await evaluate(...args);
        pieces++;
        evaluated = sequence.nextTokenIndex;
        giveUp.abort();
      };
      patched.push(slot);
      return slot;
    };
    try {
      await expect(client.complete(request, giveUp.signal)).rejects.toMatchObject({ kind: 'aborted' });
    } finally {
      engine.acquire = acquire;
      for (const slot of patched) delete (slot.sequence as { evaluateWithoutGeneratingNewTokens?: unknown }).evaluateWithoutGeneratingNewTokens;
    }
    expect(pieces).toBe(1);
    expect(evaluated).toBeLessThan(total - PROMPT_PIECE_TOKENS);
    // The sequence is usable afterwards.
    const after = await client.complete(requests('compact', 1)[0]!, signal());
    expect(parseAnswer(after.text, 2).ok).toBe(true);
  }, 300_000);

  it('a prompt longer than the context is refused at once, naming both sizes', async () => {
    const request: ChatRequest = { messages: [{ role: 'user', content: 'north wall cover '.repeat(700) }], temperature: 0 };
    await expect(client.complete(request, signal())).rejects.toMatchObject({ kind: 'http', status: 413, message: expect.stringMatching(/^the prompt is \d+ tokens, and the local model's context holds 1024 with its answer$/) });
  }, 300_000);

  it('closing the platform frees the engine: its context, model and llama.cpp are disposed, and the model is not opened again', async () => {
    await platform.close();
    expect([client.engine.context.disposed, client.engine.model.disposed, client.engine.llama.disposed]).toEqual([true, true, true]);
    await expect(platform.llm.connect()).rejects.toThrow(/closed/);
    await platform.close();
  });
});
