/**
 * The cross-engine check: seeded matches of every team, played tick by tick with each
 * tick's state hash kept, so the page (window.__hillmind.crossEngine) and Node can be
 * compared bit for bit at every tick (test/e2e/crossEngine.test.ts). Everything here runs
 * the product's own code paths: the registry's teams on the platform given (the page's
 * models fetched and checked as the page does), the hierarchical controller and trained
 * skills under recorded language-model decisions, and the page's own input mapping
 * (controls.ts) under a person's recorded inputs.
 *
 * What is recorded rather than live is only what the outside world decides: when a
 * language model answers and what, and which keys a person holds. Both are derived from
 * the case's seed, so each engine plays the same recording.
 */
import { Match, type TeamFactory } from '../match';
import { type Action, type Team, type World, Rng, deriveSeed, hashWorld } from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import { HierarchicalController, type Platform, type Strategist, type StrategistAnswer } from '../teams';
import { createHumanTeam } from '../teams/human';
import { type Intent, emptyIntent, intentToAction } from './controls';

/** Every team id the registry has; llm and human are played on recordings. */
export const CROSS_ENGINE_TEAMS = ['heuristic', 'bt', 'bt-scripted', 'llm', 'flat', 'random', 'fixed', 'human'] as const;
export type CrossEngineTeam = (typeof CROSS_ENGINE_TEAMS)[number];

export interface CrossEngineCase {
  readonly blue: CrossEngineTeam;
  readonly red: CrossEngineTeam;
  readonly seed: number;
}

export interface CrossEngineResult {
  readonly case: CrossEngineCase;
  /** Each tick's state hash (16 hex digits), tick 1 first, concatenated. */
  readonly hashes: string;
  /** The match's replay file, as the page saves it. */
  readonly replay: string;
}

/** The AI beside a recorded person: the tree over trained skills, so the person's side plays models too. */
export const RECORDED_PERSON_TEAMMATE = 'bt';

/** Every ordered pair of teams (mirrors included), `seeds` times each, with distinct seeds. */
export function crossEngineCases(seeds: number, firstSeed = 1): CrossEngineCase[] {
  const cases: CrossEngineCase[] = [];
  let seed = firstSeed;
  for (let round = 0; round < seeds; round++) {
    for (let i = 0; i < CROSS_ENGINE_TEAMS.length; i++) {
      for (let j = i; j < CROSS_ENGINE_TEAMS.length; j++) {
        // Alternate which team plays blue from round to round, so both sides are covered.
        const [blue, red] = round % 2 === 0 ? [CROSS_ENGINE_TEAMS[i]!, CROSS_ENGINE_TEAMS[j]!] : [CROSS_ENGINE_TEAMS[j]!, CROSS_ENGINE_TEAMS[i]!];
        cases.push({ blue, red, seed: seed++ });
      }
    }
  }
  return cases;
}

/**
 * A language model's answers as a recording: a new pair of skills every 0.4 to 1.6 s of
 * game time (the spread of real answers), each chosen at random from the seed.
 */
export function recordedModelStrategist(seed: number): Strategist {
  const rng = new Rng(seed);
  let next = 0;
  return {
    source: 'llm',
    decide(world: World, _team: Team, current: readonly SkillId[]): StrategistAnswer | null {
      if (world.tick < next) return null;
      next = world.tick + 20 + rng.int(61);
      return { skills: current.map(() => SKILL_IDS[rng.int(SKILL_IDS.length)]!), rationale: 'recorded' };
    },
  };
}

/**
 * A person's inputs as a recording: held keys, a pointer to aim at, fire and dash, each
 * kept for 0.2 to 0.8 s, read through the page's own mapping from intent to action.
 */
export function recordedPersonInput(seed: number): { read(world: World, agentId: number, slot: number, out: Action): void } {
  const rng = new Rng(seed);
  const intent: Intent = emptyIntent();
  let until = -1;
  return {
    read(world, agentId, _slot, out) {
      if (world.tick >= until) {
        until = world.tick + 10 + rng.int(31);
        Object.assign(intent, emptyIntent(), {
          dx: rng.int(3) - 1,
          dy: rng.int(3) - 1,
          aimX: rng.next() * world.config.arena.width,
          aimY: rng.next() * world.config.arena.height,
          fire: rng.next() < 0.5,
          dash: rng.next() < 0.05,
        });
      }
      intentToAction(world, agentId, intent, out);
    },
  };
}

/** Side controllers for the recorded teams; the others come from the registry. */
function recordedFactory(team: CrossEngineTeam, side: string, seed: number, platform: Platform): TeamFactory | undefined {
  if (team === 'llm') {
    return async (ctx) =>
      new HierarchicalController('llm', ctx.team, recordedModelStrategist(deriveSeed(seed, side, 'recorded-llm')), await platform.models.skillSet(), ctx.onDecision);
  }
  if (team === 'human') {
    return (ctx) => createHumanTeam(ctx, { teammate: RECORDED_PERSON_TEAMMATE, input: recordedPersonInput(deriveSeed(seed, side, 'recorded-person')) });
  }
  return undefined;
}

/** Play one case to its end, keeping every tick's hash. */
export async function playCrossEngineCase(c: CrossEngineCase, platform: Platform): Promise<CrossEngineResult> {
  const blue = recordedFactory(c.blue, 'blue', c.seed, platform);
  const red = recordedFactory(c.red, 'red', c.seed, platform);
  const match = await Match.create(
    { blue: c.blue, red: c.red, seed: c.seed },
    { platform, controllers: { ...(blue ? { blue } : {}), ...(red ? { red } : {}) } },
  );
  const hashes: string[] = [];
  while (!match.done) {
    const pending = match.advance();
    if (pending) await pending;
    hashes.push(hashWorld(match.world));
  }
  match.close();
  return { case: c, hashes: hashes.join(''), replay: JSON.stringify(match.replay()) };
}

/** The first tick whose hash differs between two results of the same case, or null. */
export function firstDivergence(a: CrossEngineResult, b: CrossEngineResult): { tick: number; a: string; b: string } | null {
  const ticks = Math.max(a.hashes.length, b.hashes.length) / 16;
  for (let i = 0; i < ticks; i++) {
    const ha = a.hashes.slice(i * 16, i * 16 + 16);
    const hb = b.hashes.slice(i * 16, i * 16 + 16);
    if (ha !== hb) return { tick: i + 1, a: ha || '(ended)', b: hb || '(ended)' };
  }
  return null;
}
