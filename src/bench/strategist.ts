/**
 * Figures of the strategist plumbing for `npm run bench`: prompt size in tokens (the static
 * and the per-state part) and the strategist's own time per decision without the network
 * (situation, prompt, cache address, answer parsing and validation).
 */
import { type Action, type TeamSituation, createWorld, idleAction, step, teamSituation } from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import { percentile } from '../stats';
import { parseAnswer } from '../llm/answer';
import { cacheKey } from '../llm/cache';
import { ruleAnswerText } from '../llm/ruleClient';
import { buildRequest, systemPrompt } from '../llm/prompt';
import { estimateTokens } from '../llm/tokens';

/** One benchmark figure (the shape `npm run bench` prints). */
export interface LlmBenchRow {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: number;
  readonly lowerIsBetter?: boolean;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const p95 = (xs: readonly number[]) => (xs.length ? percentile(xs, 95, 'nearest-rank') : 0);

/** Token estimates of the system prompt and of the given user prompts (per decision). */
export function promptTokenRows(userPrompts: readonly string[]): LlmBenchRow[] {
  const perState = userPrompts.map(estimateTokens);
  const compact = estimateTokens(systemPrompt('compact'));
  return [
    { name: 'prompt tokens: static part (system, compact)', value: compact, unit: 'tokens (est.)' },
    { name: 'prompt tokens: static part (system, json)', value: estimateTokens(systemPrompt('json')), unit: 'tokens (est.)' },
    { name: 'prompt tokens: per-state part (user), mean', value: mean(perState), unit: 'tokens (est.)' },
    { name: 'prompt tokens: per-state part (user), p95', value: p95(perState), unit: 'tokens (est.)', target: 200, lowerIsBetter: true },
    { name: 'prompt tokens per decision, mean (compact)', value: compact + mean(perState), unit: 'tokens (est.)' },
    { name: 'answer tokens per decision (compact "1,3")', value: estimateTokens('1,3'), unit: 'tokens (est.)' },
  ];
}

/**
 * Situations from worlds stepped with varied actions: every band of health, distance and
 * time. The worlds' seeds count up from `firstSeed`.
 */
export function sampleWorlds(count: number, firstSeed = 0) {
  const samples: { world: ReturnType<typeof createWorld>; team: 0 | 1; current: SkillId[] }[] = [];
  const actions: Action[] = [0, 1, 2, 3].map(() => idleAction());
  for (let i = 0; samples.length < count; i++) {
    const world = createWorld(firstSeed + i);
    const stop = 200 + ((i * 397) % 2500);
    while (world.tick < stop && !world.outcome) {
      actions.forEach((a, k) => {
        a.move = Math.sin(world.tick * 0.011 + k);
        a.turn = Math.cos(world.tick * 0.007 + 2 * k);
        a.fire = (world.tick + k) % 4 === 0 ? 1 : 0;
      });
      step(world, actions);
    }
    samples.push({ world, team: (i % 2) as 0 | 1, current: [SKILL_IDS[i % 4]!, SKILL_IDS[(i + 1) % 4]!] });
  }
  return samples;
}

/** Keeps the benchmark's results alive so the work is not optimised away. */
export let benchSink = 0;

/**
 * The strategist's own work per decision, no network: read the situation, write the
 * prompt, address the cache, parse and validate the answer.
 */
export function benchDecisionCost(seconds: number): LlmBenchRow[] {
  const samples = sampleWorlds(64);
  // The answers a model would give, made beforehand: their cost is the model's, not ours.
  const answers = samples.map((s) => ruleAnswerText(buildRequest(teamSituation(s.world, s.team), s.current, { format: 'compact', temperature: 0.1 })));
  const jsonAnswers = samples.map((s) => ruleAnswerText(buildRequest(teamSituation(s.world, s.team), s.current, { format: 'json', temperature: 0.1 })));
  const run = (format: 'compact' | 'json', texts: readonly string[]) => {
    let decisions = 0;
    let sink = 0;
    const start = performance.now();
    while (performance.now() - start < (seconds * 1000) / 2) {
      for (let i = 0; i < samples.length; i++) {
        const s = samples[i]!;
        // Clear the per-tick observation cache so each decision observes afresh.
        s.world.observationCache.tick.fill(-1);
        const situation: TeamSituation = teamSituation(s.world, s.team);
        const request = buildRequest(situation, s.current, { format, temperature: 0.1 });
        sink += cacheKey('model', request).material.length;
        const parsed = parseAnswer(texts[i]!, situation.agents.length);
        if (parsed.ok) sink += parsed.skills.length;
        decisions++;
      }
    }
    benchSink += sink;
    return (performance.now() - start) / decisions;
  };
  const compact = run('compact', answers);
  const json = run('json', jsonAnswers);
  return [
    { name: 'strategist own time per decision (compact)', value: compact * 1000, unit: 'µs', target: 200, lowerIsBetter: true },
    { name: 'strategist own time per decision (json)', value: json * 1000, unit: 'µs', target: 200, lowerIsBetter: true },
  ];
}
