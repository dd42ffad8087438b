/**
 * Build the strategist exam's set (llm/exam.ts) from real matches: every half second of
 * play, each side that runs skills gives its situation, its current skills and the rules'
 * choice (teams/behaviorTree.ts rulesChoice). Several team pairs, so the current skills
 * come from several strategists: the tree (which mostly already follows the rules), the
 * random ablation and constant plans (which mostly do not: the held-out part). Equal
 * prompts are kept once. The same options give the same set, byte for byte.
 */
import { EXAM_FORMAT, EXAM_VERSION, type ExamItem, type ExamSet, userPrompt } from '../llm';
import { Rng, teamSituation } from '../sim';
import type { SkillId } from '../skills';
import { type Platform, rulesChoice } from '../teams';
import { Match } from './match';

/** The pairs sampled: every strategist the product has, against teams of every kind. */
export const EXAM_PAIRS: readonly (readonly [string, string])[] = [
  ['bt', 'flat'],
  ['random', 'bt'],
  ['bt-scripted', 'random'],
  ['fixed:skills=secure+secure', 'bt-scripted'],
  ['fixed:skills=navigate+combat', 'heuristic'],
  ['bt', 'fixed:skills=combat+retreat'],
  ['random', 'flat'],
];

export interface ExamSetOptions {
  /** Situations in the set. */
  readonly size: number;
  /** Matches per pair, seeds firstSeed.. */
  readonly seeds: number;
  /** The first seed (default 1: the exam's); other seeds give other situations, e.g. to train on. */
  readonly firstSeed?: number;
  /** Ticks between samples (25: the strategist's 2 Hz). */
  readonly every: number;
  /** The command that rebuilds it, recorded in the set. */
  readonly command: string;
  readonly onMatch?: (done: number, total: number) => void;
}

export async function buildExamSet(platform: Platform, options: ExamSetOptions): Promise<ExamSet> {
  const seen = new Set<string>();
  const pool: Omit<ExamItem, 'id'>[] = [];
  const matches: string[] = [];
  const total = EXAM_PAIRS.length * options.seeds;
  for (const [blue, red] of EXAM_PAIRS) {
    const first = options.firstSeed ?? 1;
    for (let seed = first; seed < first + options.seeds; seed++) {
      matches.push(`${blue} vs ${red}, seed ${seed}`);
      const match = await Match.create({ blue, red, seed }, { platform, record: false });
      while (!match.done) {
        const tick = match.world.tick;
        if (tick > 0 && tick % options.every === 0) {
          for (const controller of match.controllers) {
            if (controller.currentSkills.some((s) => s === null)) continue; // no strategist
            const situation = teamSituation(match.world, controller.team);
            if (!situation.agents.some((a) => a.alive)) continue;
            const current = [...controller.currentSkills] as SkillId[];
            const key = userPrompt(situation, current);
            if (seen.has(key)) continue;
            seen.add(key);
            const rules = rulesChoice(situation, current);
            pool.push({ from: `${blue} vs ${red}, seed ${seed}, tick ${tick}, ${situation.teamName}`, situation: { ...situation, agents: situation.agents.map((a) => ({ ...a })) }, current, rules });
          }
        }
        const pending = match.advance();
        if (pending) await pending;
      }
      match.close();
      options.onMatch?.(matches.length, total);
    }
  }
  return {
    format: EXAM_FORMAT,
    version: EXAM_VERSION,
    built: { command: options.command, matches, every: `${options.every} ticks` },
    items: select(pool, options.size).map((item, i) => ({ id: `s${String(i + 1).padStart(4, '0')}`, ...item })),
  };
}

/**
 * Half the set from situations where some living agent's current skill differs from the
 * rules' choice (the held-out part), half from the rest, each drawn at random from a fixed
 * seed; the shorter half's shortfall is filled from the other.
 */
function select<T extends Omit<ExamItem, 'id'>>(pool: readonly T[], size: number): T[] {
  const rng = new Rng(20261202);
  const shuffled = [...pool];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  const differs = (item: T) => item.situation.agents.some((a, slot) => a.alive && item.current[slot] !== item.rules[slot]);
  const held = shuffled.filter(differs);
  const rest = shuffled.filter((item) => !differs(item));
  const fromHeld = Math.min(held.length, Math.max(Math.ceil(size / 2), size - rest.length));
  const chosen = [...held.slice(0, fromHeld), ...rest.slice(0, size - fromHeld)];
  if (chosen.length < size) throw new Error(`the matches gave ${pool.length} distinct situations; the set needs ${size} (play more seeds)`);
  return chosen;
}
