/**
 * Build the strategist exam's set (llm/exam.ts) from real matches: every half second of
 * play, each side that runs skills gives its situation, its current skills and the rules'
 * choice (teams/behaviorTree.ts rulesChoice). Several team pairs, so the current skills
 * come from several strategists: the tree (which mostly already follows the rules), the
 * random ablation and constant plans (which mostly do not: the held-out part). Equal
 * prompts are kept once. The same options give the same set, byte for byte.
 *
 * Labels that need the world, not only its situation in words (the planner's: it plays the
 * world forward), come from one hook on the situations selected: the same situations the
 * rules label, so the rules and another teacher are compared, and taught, on the same moments.
 */
import { EXAM_FORMAT, EXAM_VERSION, type ExamItem, type ExamSet, userPrompt } from '../llm';
import { Rng, TEAM_NAMES, type Team, type World, teamSituation } from '../sim';
import type { SkillId } from '../skills';
import { PLANNER_DEFAULTS, type Platform, type PlannerSettings, cloneWorld, plannerChoice, rulesChoice } from '../teams';
import { Match, sideSeed } from './match';

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
  /** The planner's label for every situation selected, from the world it was taken at; absent, a v1 set (the rules' labels only). */
  readonly planner?: WorldLabeller;
  readonly onMatch?: (done: number, total: number) => void;
  /** Told after each situation the planner labelled. */
  readonly onLabel?: (done: number, total: number) => void;
}

/** A moment of play, as a label from the world needs it. */
export interface PlayedMoment {
  /** The world as the team's strategist saw it: a label reads it and leaves it as it was. */
  readonly world: World;
  readonly team: Team;
  /** The skills its agents ran. */
  readonly current: readonly SkillId[];
  /** The opponent's skills, where it runs skills (null: a team without a strategist). */
  readonly opponentSkills: readonly SkillId[] | null;
  /** The match's seed. */
  readonly seed: number;
}

/** A teacher's choice at a moment of play. */
export type WorldLabeller = (moment: PlayedMoment) => Promise<SkillId[]>;

/**
 * The planner as a labeller: its choice (teams/planner.ts plannerChoice, defaults
 * PLANNER_DEFAULTS) with the seed a planner in that seat of that match would have, starting
 * the opponent from its actual skills where it runs skills (a teacher knows them; a player
 * tracks a guess).
 */
export function plannerLabeller(platform: Platform, settings: PlannerSettings = PLANNER_DEFAULTS): WorldLabeller {
  return (m) => plannerChoice(platform, m.world, m.team, m.current, { seed: sideSeed(m.seed, TEAM_NAMES[m.team], 'planner'), settings, opponentSkills: m.opponentSkills });
}

export async function buildExamSet(platform: Platform, options: ExamSetOptions): Promise<ExamSet> {
  const seen = new Set<string>();
  const pool: { item: Omit<ExamItem, 'id'>; moment: PlayedMoment | null }[] = [];
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
            const item = { from: `${blue} vs ${red}, seed ${seed}, tick ${tick}, ${situation.teamName}`, situation: { ...situation, agents: situation.agents.map((a) => ({ ...a })) }, current, rules };
            // The world is kept only for a label that needs it (a copy: the match plays on).
            const opponent = match.controllers.find((c) => c.team !== controller.team)?.currentSkills ?? [];
            const opponentSkills = opponent.length > 0 && opponent.every((s) => s !== null) ? ([...opponent] as SkillId[]) : null;
            const moment = options.planner ? { world: cloneWorld(match.world), team: controller.team, current, opponentSkills, seed } : null;
            pool.push({ item, moment });
          }
        }
        const pending = match.advance();
        if (pending) await pending;
      }
      match.close();
      options.onMatch?.(matches.length, total);
    }
  }
  const chosen = select(pool, options.size, ({ item }) => item.situation.agents.some((a, slot) => a.alive && item.current[slot] !== item.rules[slot]));
  const items: ExamItem[] = [];
  for (const [i, { item, moment }] of chosen.entries()) {
    const planner = options.planner && moment ? { planner: await options.planner(moment) } : {};
    items.push({ id: `s${String(i + 1).padStart(4, '0')}`, ...item, ...planner });
    if (options.planner) options.onLabel?.(i + 1, chosen.length);
  }
  return {
    format: EXAM_FORMAT,
    // A set without the planner's labels has v1's form.
    version: options.planner ? EXAM_VERSION : 1,
    built: { command: options.command, matches, every: `${options.every} ticks` },
    items,
  };
}

/**
 * Half the set from situations where some living agent's current skill differs from the
 * rules' choice (the held-out part), half from the rest, each drawn at random from a fixed
 * seed; the shorter half's shortfall is filled from the other.
 */
function select<T>(pool: readonly T[], size: number, differs: (entry: T) => boolean): T[] {
  const rng = new Rng(20261202);
  const shuffled = [...pool];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  const held = shuffled.filter(differs);
  const rest = shuffled.filter((item) => !differs(item));
  const fromHeld = Math.min(held.length, Math.max(Math.ceil(size / 2), size - rest.length));
  const chosen = [...held.slice(0, fromHeld), ...rest.slice(0, size - fromHeld)];
  if (chosen.length < size) throw new Error(`the matches gave ${pool.length} distinct situations; the set needs ${size} (play more seeds)`);
  return chosen;
}
