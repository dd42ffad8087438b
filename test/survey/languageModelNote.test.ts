/**
 * What survey create says of the language model: the configured model, the embedded one
 * with its shipped adapter (from the adapter's card) or untuned, named as such, and its latest strategist exam read from the exam's JSON
 * (other files in the folder passed over), or the command that measures it.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRATEGIST_DEFAULTS, fixedLlmAccess, llmSettingsOf, parseLlmSpec } from '../../src/llm';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, shippedAdapterPath } from '../../src/llm/localModels';
import { languageModelNote, latestExam } from '../../src/survey/languageModelNote';
import type { ChatClient } from '../../src/llm';
import { cardPathOf, readAdapterCard } from '../../src/llm/node/adapterCard';
import { testPlatform } from '../helpers/platform';

/** The name the embedded default runs under, as the settings give it (the file the engine runs). */
const EMBEDDED_MODEL = (() => {
  const settings = llmSettingsOf(parseLlmSpec({}));
  if (!settings.ok) throw new Error(settings.error);
  return settings.settings.model;
})();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-llm-note-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const report = (model: string, kappa: number) =>
  JSON.stringify({ format: 'hillmind-strategist-exam-report', set: { version: 1, situations: 40 }, model, scores: { kappa, heldOut: { kappa: kappa - 0.01 } } });

const platformWith = (model: string, provider: string) =>
  testPlatform({ llm: fixedLlmAccess({ client: { model } as unknown as ChatClient, provider, settings: STRATEGIST_DEFAULTS, cache: null }) });

describe('the language-model note of survey create', () => {
  it('says nothing when no team plays through a language model', async () => {
    expect(await languageModelNote(['bt-scripted', 'heuristic'], platformWith(EMBEDDED_MODEL, 'local llama.cpp'), dir)).toEqual([]);
  });

  it('names the embedded Gemma 3 270M as untuned and gives its newest exam', async () => {
    writeFileSync(join(dir, 'old.json'), report(EMBEDDED_MODEL, 0.3));
    utimesSync(join(dir, 'old.json'), new Date('2026-01-01'), new Date('2026-01-01'));
    writeFileSync(join(dir, 'new.json'), report(EMBEDDED_MODEL, -0.14));
    writeFileSync(join(dir, 'other.json'), report('qwen', 0.6));
    writeFileSync(join(dir, 'broken.json'), '{');
    expect(latestExam(dir, EMBEDDED_MODEL)).toMatchObject({ path: join(dir, 'new.json'), kappa: -0.14, situations: 40 });
    const lines = await languageModelNote(['llm', 'heuristic'], platformWith(EMBEDDED_MODEL, 'local llama.cpp (CPU, 1 thread)'), dir);
    expect(lines[0]).toBe(`Language model for llm: ${EMBEDDED_MODEL} (local llama.cpp (CPU, 1 thread)).`);
    expect(lines.join('\n')).toMatch(/embedded Gemma 3 270M, untuned[\s\S]*kappa about 0/);
    expect(lines.at(-2)).toBe(`  Its latest strategist exam (${join(dir, 'new.json')}, 40 situations): kappa with the rules -0.14, -0.15 where the current skill differs (1: the rules, 0: chance).`);
    expect(lines.at(-1)).toMatch(/npm run llm:exam takes the exam again/);
  });

  it('names the shipped adapter of the embedded model and gives its card\'s exam, without calling it untuned', async () => {
    const card = readAdapterCard(cardPathOf(shippedAdapterPath(LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!)!));
    const lines = await languageModelNote(['llm'], platformWith(`${EMBEDDED_MODEL}+strategist-gemma3-270m@${card.sha256.slice(0, 8)}`, 'local llama.cpp (CPU, 1 thread)'), dir);
    const text = lines.join('\n');
    // Its teachers, and the adapter it started from where it did, as its card says.
    const from = card.training.settings.init ? ` from the adapter ${String(card.training.settings.init)}` : '';
    expect(text).toContain(`embedded Gemma 3 270M with its shipped adapter (models/strategist-gemma3-270m.gguf), taught by ${card.teachers.map((t) => t.name).join(' and ')}${from}:`);
    expect(text).toContain(`kappa with the rules ${card.exam.kappa!.toFixed(2)}, ${card.exam.heldOut.kappa!.toFixed(2)} where the current skill differs`);
    if (card.exam.planner) expect(text).toContain(`with the planner ${card.exam.planner.kappa!.toFixed(2)}.`);
    expect(text).not.toMatch(/untuned/);
  });

  it('for a server model without an exam, points at npm run llm:exam and calls it nothing it is not', async () => {
    const lines = await languageModelNote(['llm:rate=1', 'bt-scripted'], platformWith('gemma3:27b', 'server http://localhost:11434/v1'), dir);
    expect(lines[0]).toBe('Language model for llm:rate=1: gemma3:27b (server http://localhost:11434/v1).');
    expect(lines.join('\n')).not.toMatch(/untuned/);
    expect(lines.at(-1)).toMatch(/No strategist exam of it in .*: npm run llm:exam measures how it plays/);
  });
});
