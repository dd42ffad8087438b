/**
 * The strategist adapter the product ships (models/strategist-gemma3-270m.gguf, made by
 * npm run llm:tune): its card is whole and names this file and the pulled base model, the
 * local engine loads it by default, and it teaches: its choices follow the rules on exam
 * situations where the model alone does not. (The match it plays is local.test.ts's.)
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LlmConnection, buildRequest, parseAnswer, parseExamSet } from '../../src/llm';
import { sha256File } from '../../src/llm/node/digest';
import type { LlamaChatClient } from '../../src/llm/node/llamaClient';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, engineFile, ggufModelName, shippedAdapterPath, shippedAdapterPaths } from '../../src/llm/localModels';
import { adapterProblem, localAvailability, nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec, readLlmSettings } from '../../src/llm/settings';
import { cardPathOf, readAdapterCard } from '../../src/llm/node/adapterCard';
import { describeWithLocalModel, requireLocalModel } from '../helpers/localModel';

const ADAPTER = shippedAdapterPath(LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!)!;

describe('the shipped strategist adapter', () => {
  it.each(shippedAdapterPaths(LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!))('%s has a whole card naming its bytes, its teacher and the pulled base model', async (adapter) => {
    const card = readAdapterCard(cardPathOf(adapter));
    expect(card.name).toBe(ggufModelName(adapter));
    expect(card.sha256).toBe(await sha256File(adapter));
    expect(card.bytes).toBe(statSync(adapter).size);
    // The pulled file, or the file cut from it that the engine runs (an adapter tuned since the cut): the same weights.
    expect([LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!.sha256, engineFile(LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!).sha256]).toContain(card.base.sha256);
    expect(card.teachers.length).toBeGreaterThan(0);
    expect(card.exam.kappa).not.toBeNull();
    // The pulled model is asked in the format the adapter was taught.
    expect(card.prompt).toBe(LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!.adapterFormat);
    expect(card.examUntuned?.kappa ?? 0).toBeLessThan(card.exam.kappa!);
    // Small enough to commit beside the skills.
    expect(card.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('is what the pulled model runs with unless LLM_ADAPTER says otherwise', () => {
    expect(readLlmSettings({})).toMatchObject({ ok: true, settings: { adapter: ADAPTER } });
  });

  it("another adapter (LLM_ADAPTER=<file>) is asked in the format its card says it was taught, unless LLM_FORMAT asks another", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hillmind-taught-'));
    try {
      const gguf = join(dir, 'model.gguf');
      writeFileSync(gguf, 'not a model');
      const other = join(dir, 'other.gguf');
      copyFileSync(ADAPTER, other);
      copyFileSync(cardPathOf(ADAPTER), cardPathOf(other));
      const bare = join(dir, 'bare.gguf');
      copyFileSync(ADAPTER, bare);
      const formatOf = async (env: Record<string, string>) => {
        const access = nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: gguf, LLM_SKILLS: 'scripted', ...env }) });
        const available = await access.availability();
        return available.ok ? available.settings.format : available.reason;
      };
      const taught = readAdapterCard(cardPathOf(ADAPTER)).prompt;
      expect(taught).not.toBe('compact');
      expect(await formatOf({ LLM_ADAPTER: other })).toBe(taught);
      expect(await formatOf({ LLM_ADAPTER: other, LLM_FORMAT: 'compact' })).toBe('compact');
      // Without a card nothing says how it was taught: the default format.
      expect(await formatOf({ LLM_ADAPTER: bare })).toBe('compact');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const set = parseExamSet(readFileSync('models/strategist-exam.v1.json', 'utf8'), 'exam');
// Lockstep with a long timeout: what is tested is the choice, not this machine's speed.
const ENV = { LLM_CACHE: 'off', LLM_SEQUENCES: '1', LLM_THREADS: '1', LLM_TIMING: 'lockstep', LLM_TIMEOUT_MS: '120000' };
/**
 * Exam situations asked of each model: some thirty living agents each. The adapter agrees
 * with the rules on 90% of its card's exam and the model alone on 31%, so a gap of 0.2
 * is several standard errors (about 0.09 each at this size) either way.
 */
const ASKED = 16;

describeWithLocalModel('the shipped adapter')('the shipped adapter on the local model', () => {
  const connections: LlmConnection[] = [];
  const open = async (env: Record<string, string>) => {
    const connection = await nodeLlmAccess({ spec: parseLlmSpec({ ...ENV, ...env }) }).connect();
    connections.push(connection);
    return connection;
  };
  /** Agreement with the rules over the first ASKED situations' living agents, each model asked in its own format. */
  const agreement = async (connection: LlmConnection) => {
    let agree = 0;
    let asked = 0;
    for (const item of set.items.slice(0, ASKED)) {
      const response = await connection.client.complete(buildRequest(item.situation, item.current, { format: connection.settings.format, temperature: 0 }), new AbortController().signal);
      const parsed = parseAnswer(response.text, 2);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      item.situation.agents.forEach((a, slot) => {
        if (!a.alive) return;
        asked++;
        if (parsed.skills[slot] === item.rules[slot]) agree++;
      });
    }
    return agree / asked;
  };

  beforeAll(() => requireLocalModel());
  afterAll(async () => {
    for (const c of connections) await (c.client as LlamaChatClient).engine.dispose();
  });

  it('loads by default, names itself in the model name, and follows the rules far more often than the model alone', async () => {
    const tuned = await open({});
    expect(tuned.client.model).toMatch(/^gemma-3-270m-q4_k_m-strategist\+strategist-gemma3-270m@[0-9a-f]{8}$/);
    const alone = await open({ LLM_ADAPTER: 'none' });
    expect(alone.client.model).toBe('gemma-3-270m-q4_k_m-strategist');
    const [withAdapter, without] = [await agreement(tuned), await agreement(alone)];
    expect(withAdapter - without).toBeGreaterThan(0.2);
  }, 600_000);
});

describe('an adapter that is not the one its card describes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hillmind-adapter-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The shipped adapter and its card copied to `name`, changed by `change`, on a model file that is only there (nothing is loaded). */
  const copied = (name: string, change: (adapter: string, card: string) => void) => {
    const adapter = join(dir, `${name}.gguf`);
    copyFileSync(ADAPTER, adapter);
    copyFileSync(cardPathOf(ADAPTER), cardPathOf(adapter));
    change(adapter, cardPathOf(adapter));
    writeFileSync(join(dir, 'model.gguf'), 'weights');
    return { HILLMIND_LLM_GGUF: join(dir, 'model.gguf'), LLM_ADAPTER: adapter };
  };
  const shipped = readAdapterCard(cardPathOf(ADAPTER)).sha256;

  it.each([
    [
      'a flipped byte',
      (adapter: string) => {
        const bytes = readFileSync(adapter);
        const at = bytes.length >> 1;
        bytes[at] = bytes[at]! ^ 0x01;
        writeFileSync(adapter, bytes);
      },
      (adapter: string) => new RegExp(`the LoRA adapter ${adapter} is not the one its card ${cardPathOf(adapter)} describes: its SHA-256 is (?!${shipped})[0-9a-f]{64}, the card says ${shipped}`),
    ],
    [
      'a changed card digest',
      (_adapter: string, card: string) => writeFileSync(card, readFileSync(card, 'utf8').replace(shipped, '0'.repeat(64))),
      (adapter: string) => new RegExp(`the LoRA adapter ${adapter} is not the one its card .* describes: its SHA-256 is ${shipped}, the card says 0{64}`),
    ],
  ])('is refused before it is loaded: %s', async (name, change, reason) => {
    const env = copied(name.replace(/ /g, '-'), change);
    const settings = readLlmSettings(env);
    if (!settings.ok || settings.settings.source !== 'local') throw new Error('expected local settings');
    expect(localAvailability(settings.settings)).toMatchObject({ ok: false, reason: expect.stringMatching(reason(env.LLM_ADAPTER)) });
    let opened = 0;
    const access = nodeLlmAccess({ spec: parseLlmSpec(env), openLocal: async () => (opened++, Promise.reject(new Error('not reached'))) });
    await expect(access.connect()).rejects.toThrow(reason(env.LLM_ADAPTER));
    expect(opened).toBe(0);
  });

  it('is served when it matches its card; a shipped adapter without its card is refused, a trial one without a card is not', () => {
    const env = copied('intact', () => undefined);
    const settings = readLlmSettings(env);
    if (!settings.ok || settings.settings.source !== 'local') throw new Error('expected local settings');
    expect(localAvailability(settings.settings)).toEqual({ ok: true });
    rmSync(cardPathOf(env.LLM_ADAPTER));
    expect(adapterProblem(env.LLM_ADAPTER, { cardRequired: true })).toMatch(/has no card: .*intact\.json is missing/);
    expect(adapterProblem(env.LLM_ADAPTER, { cardRequired: false })).toBeNull();
  });
});
