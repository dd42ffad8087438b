/**
 * The planner: a strategist that looks ahead. Every `every` seconds it tries each candidate
 * choice in copies of the world (rollout.ts): its agents hold the candidate's skills until
 * the next plan, the tree plays them after, the opponent plays as its model says (the tree
 * over the trained skills by default), for `horizon` seconds; it keeps the candidate whose
 * rollouts score best. Between plans it acts at the skill rate as the tree does, for the
 * agents the plan left to the tree, so it reacts as fast as the tree while it plans.
 *
 * A candidate gives each agent a mode: 'tree' (follow the tree) or one skill to hold. With
 * search=agent the candidates are the tree's own choice and every way to change one agent
 * (1 + 4 per living agent); with search=joint, every combination of modes (5 per living
 * agent). The tree's choice comes first and ties keep the earlier candidate, so the planner
 * changes the tree's play only where its rollouts say that is better.
 *
 * Its decisions are recorded as any strategist's, so a replay verifies from its decisions
 * without planning again (as the llm team's do). Planning is deterministic: rollouts draw
 * their weapon spread from streams seeded by the team's seed, the tick and the rollout.
 */
import { z } from 'zod';
import type { Clock } from '../llm';
import { type Team, type World } from '../sim';
import { SCRIPTED_SKILLS, SKILL_IDS, type SkillId, type SkillSet } from '../skills';
import type { TeamContext } from './controller';
import type { Platform } from './platform';
import { NEEDS_NOTHING, type TeamEntry, TeamUnavailable, type TeamVariant } from './entry';
import { HEURISTIC_POLICY } from './heuristic';
import { HierarchicalController, type Strategist, type StrategistAnswer } from './hierarchical';
import { type AgentMode, PolicySide, type RolloutCounters, RolloutRunner, type SideModel, TreeSide } from './rollout';
import { formatTeamSpec, variantNumber } from './variant';

/** The opponent models a planner may assume. */
export const PLANNER_OPPONENTS = ['bt', 'bt-scripted', 'flat', 'heuristic'] as const;
export type PlannerOpponent = (typeof PLANNER_OPPONENTS)[number];
export const PLANNER_SEARCHES = ['agent', 'joint'] as const;

export interface PlannerSettings {
  /** Seconds each rollout looks ahead. */
  readonly horizon: number;
  /** Rollouts per candidate, each with its own weapon-spread stream; their scores are averaged. */
  readonly rollouts: number;
  /** Seconds between plans. */
  readonly every: number;
  readonly opponent: PlannerOpponent;
  readonly search: (typeof PLANNER_SEARCHES)[number];
}

/**
 * What `planner` plays with no settings (docs/matches.md, --help and the team table name
 * them). Measured against bt (docs/matches.md#the-planner): a 5 s horizon won more than 3 s
 * and 1.5 s, and planning each second lost nothing to each half second at fewer rollouts.
 */
export const PLANNER_DEFAULTS: PlannerSettings = { horizon: 5, rollouts: 1, every: 1, opponent: 'bt', search: 'agent' };

export const PLANNER_VARIANT = z.object({
  horizon: variantNumber(0.1, 30, 'a number of seconds').optional(),
  rollouts: variantNumber(1, 64, 'a whole number').pipe(z.number().int({ message: 'must be a whole number' })).optional(),
  every: variantNumber(0.1, 10, 'a number of seconds').optional(),
  opponent: z.enum(PLANNER_OPPONENTS, { message: `must be one of ${PLANNER_OPPONENTS.join(', ')}` }).optional(),
  search: z.enum(PLANNER_SEARCHES, { message: `must be one of ${PLANNER_SEARCHES.join(', ')}` }).optional(),
});

export function plannerSettings(variant: TeamVariant): PlannerSettings {
  return { ...PLANNER_DEFAULTS, ...(variant.settings as z.infer<typeof PLANNER_VARIANT>) };
}

/** One candidate of a plan and the mean score its rollouts reached. */
export interface PlanOption {
  readonly modes: readonly AgentMode[];
  readonly score: number;
}

/** A plan as the panel shows it: when, every option tried (in the order tried), and the one kept. */
export interface Plan {
  readonly tick: number;
  readonly options: readonly PlanOption[];
  readonly chosen: number;
}

/**
 * How a plan's rollouts are spread over time: absent, all at once (Node: the match waits
 * anyway); present, in slices of about `sliceMs` with a pause between them, so the page
 * draws frames while the planner thinks. A slice ends between rollouts, never inside one,
 * and the plan is the same however it is sliced: the budget bounds a frame's work, not the
 * plan's (a plan cut short by time would differ from machine to machine).
 */
export interface PlanSlicing {
  readonly sliceMs: number;
  readonly clock: Clock;
}

/** The candidates for a team whose agents are `alive` (dead agents follow the tree: they have no skill to hold yet). */
export function planCandidates(alive: readonly boolean[], search: PlannerSettings['search']): AgentMode[][] {
  const tree: AgentMode[] = alive.map(() => 'tree');
  if (search === 'agent') {
    const out = [tree];
    alive.forEach((living, slot) => {
      if (living) for (const skill of SKILL_IDS) out.push(tree.map((m, i) => (i === slot ? skill : m)));
    });
    return out;
  }
  let out: AgentMode[][] = [[]];
  for (const living of alive) {
    const modes: AgentMode[] = living ? ['tree', ...SKILL_IDS] : ['tree'];
    out = out.flatMap((prefix) => modes.map((m) => [...prefix, m]));
  }
  return out;
}

export function modesLabel(modes: readonly AgentMode[]): string {
  return modes.join('+');
}

export class PlannerStrategist implements Strategist {
  readonly source = 'planner' as const;
  readonly periodTicks: number;
  /** The latest plan, for the panel. */
  lastPlan: Plan | null = null;
  /** Pauses taken while planning in slices (0 when planning at once). */
  slices = 0;
  private rollouts: RolloutRunner | null = null;
  private modes: readonly AgentMode[] = [];
  private nextPlanTick = 0;
  /** What the opponent model would be playing now (it cannot be seen: the model tracks it). */
  private enemySkills: SkillId[] = [];
  private readonly horizonTicks: number;
  private readonly everyTicks: number;
  /** The latest plan in words: every answer carries it, so the decision it led to says what was expected. */
  private rationale = '';

  constructor(
    private readonly settings: PlannerSettings,
    private readonly own: TreeSide,
    private readonly opponent: SideModel,
    private readonly tracker: SideModel,
    private readonly team: Team,
    private readonly seed: number,
    config: World['config'],
    private readonly slicing?: PlanSlicing,
  ) {
    this.periodTicks = config.skillEveryTicks;
    this.horizonTicks = Math.max(1, Math.round(settings.horizon * config.tickHz));
    this.everyTicks = Math.max(1, Math.round(settings.every * config.tickHz));
  }

  /** Rollouts played so far, their ticks, and those spared (bench rows). */
  get counters(): RolloutCounters {
    return this.rollouts?.counters ?? { rollouts: 0, ticks: 0, spared: 0 };
  }

  decide(world: World, team: Team, current: readonly SkillId[]): StrategistAnswer | Promise<StrategistAnswer> {
    if (team !== this.team) throw new Error(`this planner plays team ${this.team}, asked for team ${team}`);
    this.trackOpponent(world, current.length);
    if (world.tick < this.nextPlanTick) return this.answer(world, current);
    this.nextPlanTick = world.tick + this.everyTicks;
    const steps = this.plan(world, [...current]);
    if (!this.slicing) {
      while (!steps.next().done);
      return this.answer(world, current);
    }
    // The match waits for the answer (the world does not move meanwhile); the page draws between slices.
    return this.planInSlices(steps, this.slicing).then(() => this.answer(world, current));
  }

  /**
   * One plan at `world`, at once, and the skills it keeps: a teacher's label (plannerChoice).
   * The rollouts start the opponent from `opponentSkills` where given, else from what the
   * opponent model tracks (a fresh planner: its choice from navigate, as at a match's start).
   */
  planOnce(world: World, current: readonly SkillId[], opponentSkills: readonly SkillId[] | null): SkillId[] {
    if (opponentSkills) this.enemySkills = [...opponentSkills];
    else this.trackOpponent(world, current.length);
    this.nextPlanTick = world.tick + this.everyTicks;
    const steps = this.plan(world, [...current]);
    while (!steps.next().done);
    return [...this.answer(world, current).skills];
  }

  /** What the opponent model says the opponent plays now: where the rollouts start it. */
  get opponentSkills(): readonly SkillId[] {
    return this.enemySkills;
  }

  /** The held plan: the tree for its 'tree' agents, the planned skill for the others. */
  private answer(world: World, current: readonly SkillId[]): StrategistAnswer {
    this.own.hold(this.modes, this.nextPlanTick);
    this.own.begin(world, current);
    this.own.choose(world);
    return { skills: [...this.own.skills], ...(this.rationale ? { rationale: this.rationale } : {}) };
  }

  private async planInSlices(steps: Generator<void, void>, { sliceMs, clock }: PlanSlicing): Promise<void> {
    let start = clock.now();
    while (!steps.next().done) {
      if (clock.now() - start < sliceMs) continue;
      await clock.sleep(0);
      this.slices++;
      start = clock.now();
    }
  }

  /** Follow the opponent model on the real world, so rollouts start from what it would be playing. */
  private trackOpponent(world: World, perTeam: number): void {
    if (this.enemySkills.length === 0) this.enemySkills = Array.from({ length: perTeam }, () => 'navigate' as SkillId);
    this.tracker.begin(world, this.enemySkills);
    this.tracker.choose(world);
    this.enemySkills = [...this.tracker.skills];
  }

  /**
   * A plan, one rollout a step: a caller may pause between steps (planInSlices) and the plan
   * is the same. The first candidate is the tree's own; a later one whose held skills are
   * what the tree ran anyway, on every skill tick of the hold in the tree's rollout, would
   * play that rollout move for move (the same world, stream and choices), so it takes its
   * score without playing it again.
   */
  private *plan(world: World, current: readonly SkillId[]): Generator<void, void> {
    const runner = (this.rollouts ??= new RolloutRunner(world, this.team, this.own, this.opponent, this.seed));
    const alive = world.agents.filter((a) => a.team === this.team).map((a) => a.alive);
    const enemySkills = [...this.enemySkills];
    const options: PlanOption[] = [];
    const tree: { score: number; held: Set<SkillId>[] }[] = [];
    for (const modes of planCandidates(alive, this.settings.search)) {
      let total = 0;
      for (let r = 0; r < this.settings.rollouts; r++) {
        const same = tree[r];
        if (same && modes.every((m, slot) => m === 'tree' || (same.held[slot]!.size === 1 && same.held[slot]!.has(m)))) {
          total += same.score;
          runner.counters.spared++;
          continue;
        }
        this.own.hold(modes, world.tick + this.everyTicks);
        const score = runner.play(world, current, enemySkills, this.horizonTicks, r);
        if (options.length === 0) tree.push({ score, held: this.own.heldWindow.map((s) => new Set(s)) });
        total += score;
        yield;
      }
      options.push({ modes, score: total / this.settings.rollouts });
    }
    const chosen = bestOption(options);
    this.modes = options[chosen]!.modes;
    this.lastPlan = { tick: world.tick, options, chosen };
    this.rationale = planRationale(this.lastPlan, world.config.tickHz);
  }
}

/** The index of the best-scoring option; on a tie the earlier (the tree's own choice comes first). */
export function bestOption(options: readonly PlanOption[]): number {
  let best = 0;
  for (let i = 1; i < options.length; i++) if (options[i]!.score > options[best]!.score) best = i;
  return best;
}

/** Options a plan's words list at most (a replay's rationale holds 2,000 characters; a joint search of three agents tries 125). */
const LISTED_OPTIONS = 12;

/** A plan in words, for the replay and the panel: when, the choice, then the best options by score. */
export function planRationale(plan: Plan, tickHz = 50): string {
  const chosen = plan.options[plan.chosen]!;
  const ranked = [...plan.options].sort((a, b) => b.score - a.score);
  const listed = ranked.slice(0, LISTED_OPTIONS).map((o) => `${modesLabel(o.modes)} ${o.score.toFixed(2)}`);
  const more = ranked.length > LISTED_OPTIONS ? ` and ${ranked.length - LISTED_OPTIONS} more` : '';
  return `planned ${modesLabel(chosen.modes)} (${chosen.score.toFixed(2)}) at ${(plan.tick / tickHz).toFixed(1)} s; options ${listed.join(', ')}${more}`;
}

/** The planner behind a controller, if it has one (bench counters and the panel). */
export function plannerOf(controller: unknown): PlannerStrategist | null {
  const strategist = (controller as { strategist?: unknown }).strategist;
  return strategist instanceof PlannerStrategist ? strategist : null;
}

async function load<T>(what: () => Promise<T>): Promise<T> {
  try {
    return await what();
  } catch (err) {
    throw new TeamUnavailable('planner', (err as Error).message);
  }
}

/** The opponent model's side, on what the platform has. */
async function opponentSide(platform: Platform, team: Team, opponent: PlannerOpponent, trained: SkillSet): Promise<SideModel> {
  const enemy: Team = team === 0 ? 1 : 0;
  switch (opponent) {
    case 'bt':
      return new TreeSide(enemy, trained);
    case 'bt-scripted':
      return new TreeSide(enemy, SCRIPTED_SKILLS);
    case 'flat':
      return new PolicySide(await load(() => platform.models.load('flat')));
    case 'heuristic':
      return new PolicySide(HEURISTIC_POLICY);
  }
}

/** A fresh planner for `team`, over the platform's trained skills: the one a match builds, and the one a teacher asks. */
async function newPlanner(platform: Platform, team: Team, seed: number, config: World['config'], settings: PlannerSettings, slicing?: PlanSlicing) {
  const trained = await load(() => platform.models.skillSet());
  const own = new TreeSide(team, trained);
  const opponent = await opponentSide(platform, team, settings.opponent, trained);
  const tracker = await opponentSide(platform, team, settings.opponent, trained);
  return { trained, strategist: new PlannerStrategist(settings, own, opponent, tracker, team, seed, config, slicing) };
}

/** The planner for one match, from its settings. */
export async function createPlanner(ctx: TeamContext, settings: PlannerSettings, name = 'planner'): Promise<HierarchicalController> {
  const sliceMs = ctx.platform.planningSliceMs;
  const slicing = sliceMs === undefined ? undefined : { sliceMs, clock: ctx.platform.clock };
  const { trained, strategist } = await newPlanner(ctx.platform, ctx.team, ctx.seed, ctx.config, settings, slicing);
  return new HierarchicalController(name, ctx.team, strategist, trained, ctx.onDecision);
}

export interface PlannerChoiceOptions {
  /** The planner's seed: its rollouts' weapon-spread streams derive from it, the tick and the rollout. */
  readonly seed: number;
  /** Default PLANNER_DEFAULTS, what the planner team plays. */
  readonly settings?: PlannerSettings;
  /**
   * The opponent's skills now, where the caller knows them. A player cannot see them (its
   * opponent model tracks a guess); a teacher may know more, and the rollouts then start the
   * opponent from its actual skills. Null or absent (a team without skills, or unknown): a
   * fresh planner's guess, its opponent model's choice from navigate.
   */
  readonly opponentSkills?: readonly SkillId[] | null;
}

/**
 * The skills the planner would choose for `team` at `world`, whose agents run `current`: a
 * fresh planner plans once and answers as it would in a match (the teachers' and the exam's
 * planner label). Deterministic for a seed; it reads the world and never changes it or its
 * random state (rollouts play copies with streams of their own).
 */
export async function plannerChoice(platform: Platform, world: World, team: Team, current: readonly SkillId[], options: PlannerChoiceOptions): Promise<SkillId[]> {
  const { strategist } = await newPlanner(platform, team, options.seed, world.config, options.settings ?? PLANNER_DEFAULTS);
  return strategist.planOnce(world, current, options.opponentSkills ?? null);
}

/** The defaults as a variant writes them, keys in alphabetical order: `planner:every=1:horizon=5:...`. */
export function plannerDefaultsText(): string {
  return formatTeamSpec({ id: 'planner', settings: Object.fromEntries(Object.entries(PLANNER_DEFAULTS).map(([k, v]) => [k, String(v)])) });
}

export const PLANNER_TEAM_DESCRIPTION = `Looks ahead: tries each agent's skills in copies of the world and keeps what scores best, over the trained skills (defaults: ${plannerDefaultsText()}).`;

export const PLANNER_TEAM: TeamEntry = {
  id: 'planner',
  description: PLANNER_TEAM_DESCRIPTION,
  variantSchema: PLANNER_VARIANT,
  acts: {
    by: 'skills',
    source: 'planner',
    skillSets: ['trained'],
    // Planning again would need the trained models for its rollouts and cost every decision's rollouts again.
    decisions: { recorded: "a planner's decisions are taken as recorded (planning again needs its rollouts)" },
  },
  needs: (_platform, variant) => ({ ...NEEDS_NOTHING, models: plannerSettings(variant).opponent === 'flat' ? [...SKILL_IDS, 'flat'] : SKILL_IDS }),
  create: (ctx, variant) => createPlanner(ctx, plannerSettings(variant), variant.name),
};
