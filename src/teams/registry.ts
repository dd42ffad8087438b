/**
 * The team ids users type (`--blue bt-scripted`, or a variant `bt:persona=cautious`), what
 * each is, which settings it takes, what it needs, and how to build it on the platform in
 * its context. Whether a team plays here is read from its declared needs
 * (teamAvailability), so no caller special-cases a team.
 */
import { z } from 'zod';
import type { GameConfig } from '../sim';
import { SCRIPTED_SKILLS, SKILL_IDS, type SkillId } from '../skills';
import { BehaviorTreeStrategist } from './behaviorTree';
import type { TeamContext, TeamController } from './controller';
import { NEEDS_NOTHING, type StrategistContext, TEAM_IDS, type TeamEntry, type TeamId, type TeamNeeds, TeamUnavailable, type TeamVariant } from './entry';
import { FixedStrategist } from './fixedStrategist';
import { FlatController } from './flat';
import { HEURISTIC_POLICY } from './heuristic';
import { HierarchicalController } from './hierarchical';
import { LLM_TEAM } from './llmTeam';
import { PLANNER_TEAM } from './planner';
import { PERSONA_NAMES, STUDY_TREE, type TreeParameters, personaByName } from './personas';
import type { Platform } from './platform';
import { RandomStrategist } from './randomStrategist';
import { formatTeamSpec, parseTeamSpec, readVariant, variantNumber } from './variant';

/** Seconds between decisions of the random ablation (the LLM's 2 Hz). */
const RANDOM_PERIOD_SECONDS = 0.5;


/** The behavior tree's settings: a persona, and any of its parameters on top (see personas.ts). */
export const TREE_VARIANT = z.object({
  persona: z.enum(PERSONA_NAMES as [string, ...string[]], { message: `must be one of ${PERSONA_NAMES.join(', ')}` }).optional(),
  retreat: z.enum(['LOW', 'MEDIUM', 'never'], { message: 'must be LOW, MEDIUM or never' }).optional(),
  zone: z.enum(['NEAR', 'MID'], { message: 'must be NEAR or MID' }).optional(),
  engage: z.enum(['NEAR', 'MID', 'FAR'], { message: 'must be NEAR, MID or FAR' }).optional(),
  priority: z.enum(['zone', 'fight'], { message: 'must be zone or fight' }).optional(),
  securers: variantNumber(0, 8, 'a whole number').pipe(z.number().int({ message: 'must be a whole number' })).optional(),
  /** Seconds. */
  reaction: variantNumber(0, 5, 'a number of seconds').optional(),
  noise: variantNumber(0, 1, 'a share').optional(),
});

/** The tree's parameters a variant gives: the persona's, then each key set explicitly. */
export function treeParameters(settings: z.infer<typeof TREE_VARIANT>, config: GameConfig): TreeParameters {
  const base = settings.persona ? personaByName(settings.persona)!.tree : STUDY_TREE;
  return {
    retreatAt: settings.retreat ?? base.retreatAt,
    zoneWithin: settings.zone ?? base.zoneWithin,
    engageWithin: settings.engage ?? base.engageWithin,
    priority: settings.priority ?? base.priority,
    securers: settings.securers ?? base.securers,
    reactionTicks: settings.reaction !== undefined ? Math.round(settings.reaction * config.tickHz) : base.reactionTicks,
    noise: settings.noise ?? base.noise,
  };
}

/** The behavior tree a variant asks for, on this match's config and seed. */
function treeStrategist(ctx: StrategistContext, variant: TeamVariant): BehaviorTreeStrategist {
  return new BehaviorTreeStrategist(ctx.config.skillEveryTicks, treeParameters(variant.settings as z.infer<typeof TREE_VARIANT>, ctx.config), ctx.seed);
}

const RANDOM_VARIANT = z.object({ period: variantNumber(0.02, 60, 'a number of seconds').optional() });

/** The random ablation a variant asks for: a choice every `period` seconds from the side's seed. */
function randomStrategist(ctx: StrategistContext, variant: TeamVariant): RandomStrategist {
  const seconds = (variant.settings as z.infer<typeof RANDOM_VARIANT>).period ?? RANDOM_PERIOD_SECONDS;
  return new RandomStrategist(Math.max(1, Math.round(seconds * ctx.config.tickHz)), ctx.seed);
}

/** The constant plan's skills, one per agent joined by '+': `fixed:skills=secure+combat`. */
const FIXED_VARIANT = z.object({
  skills: z
    .string()
    .refine((v) => v.split('+').every((s) => (SKILL_IDS as readonly string[]).includes(s)), {
      message: `must be one skill per agent joined by '+', each one of ${SKILL_IDS.join(', ')} (e.g. secure+combat)`,
    })
    .optional(),
});
/** The plan where a variant names none: one agent holds the zone, the other guards it. */
export const DEFAULT_FIXED_PLAN = 'secure+combat';

/** The constant plan a variant asks for; throws a TeamUnavailable when it does not name one skill per agent. */
function fixedStrategist(ctx: StrategistContext, variant: TeamVariant): FixedStrategist {
  const plan = ((variant.settings as z.infer<typeof FIXED_VARIANT>).skills ?? DEFAULT_FIXED_PLAN).split('+') as SkillId[];
  if (plan.length !== ctx.config.agent.perTeam) {
    throw new TeamUnavailable('fixed', `skills=${plan.join('+')} names ${plan.length} skills; this match has ${ctx.config.agent.perTeam} agents per team`);
  }
  return new FixedStrategist(plan);
}

/** Load what a model-backed team needs, or say why the team is unavailable. */
async function withModels<T>(id: TeamId, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw new TeamUnavailable(id, (err as Error).message);
  }
}

const TRAINED_SKILLS: TeamNeeds = { ...NEEDS_NOTHING, models: SKILL_IDS };

const ENTRIES: Readonly<Record<TeamId, TeamEntry>> = {
  heuristic: {
    id: 'heuristic',
    description: "Go to the zone and shoot; no coordination, no retreat (the study's training opponent).",
    acts: { by: 'policy', policy: HEURISTIC_POLICY },
    needs: () => NEEDS_NOTHING,
    create: (ctx, variant) => new FlatController(variant.name, ctx.team, HEURISTIC_POLICY),
  },
  'bt-scripted': {
    id: 'bt-scripted',
    description: 'Behavior tree choosing among the four scripted skills, one agent securing.',
    variantSchema: TREE_VARIANT,
    acts: { by: 'skills', source: 'behavior-tree', skillSets: ['scripted'], decisions: { rederive: treeStrategist } },
    needs: () => NEEDS_NOTHING,
    create: (ctx, variant) => new HierarchicalController(variant.name, ctx.team, treeStrategist(ctx, variant), SCRIPTED_SKILLS, ctx.onDecision),
  },
  random: {
    id: 'random',
    description: 'A random skill per agent every 0.5 s over the scripted skills (an ablation).',
    variantSchema: RANDOM_VARIANT,
    acts: { by: 'skills', source: 'random', skillSets: ['scripted'], decisions: { rederive: randomStrategist } },
    needs: () => NEEDS_NOTHING,
    create: (ctx, variant) => new HierarchicalController(variant.name, ctx.team, randomStrategist(ctx, variant), SCRIPTED_SKILLS, ctx.onDecision),
  },
  bt: {
    id: 'bt',
    description: "Behavior tree choosing among the four trained RL skills (the study's BT baseline).",
    variantSchema: TREE_VARIANT,
    acts: { by: 'skills', source: 'behavior-tree', skillSets: ['trained'], decisions: { rederive: treeStrategist } },
    needs: () => TRAINED_SKILLS,
    create: async (ctx, variant) =>
      new HierarchicalController(variant.name, ctx.team, treeStrategist(ctx, variant), await withModels('bt', () => ctx.platform.models.skillSet()), ctx.onDecision),
  },
  flat: {
    id: 'flat',
    description: "One trained RL policy per agent, no strategist (the study's flat RL).",
    acts: { by: 'policy', policy: { model: 'flat' } },
    needs: () => ({ ...NEEDS_NOTHING, models: ['flat'] }),
    create: async (ctx, variant) => new FlatController(variant.name, ctx.team, await withModels('flat', () => ctx.platform.models.load('flat'))),
  },
  fixed: {
    id: 'fixed',
    description: 'One constant skill per agent over the trained skills, never changed (fixed:skills=secure+combat): a plan without a strategist, as a baseline.',
    variantSchema: FIXED_VARIANT,
    acts: { by: 'skills', source: 'rule', skillSets: ['trained'], decisions: { rederive: fixedStrategist } },
    needs: () => TRAINED_SKILLS,
    create: async (ctx, variant) => {
      const strategist = fixedStrategist(ctx, variant);
      return new HierarchicalController(variant.name, ctx.team, strategist, await withModels('fixed', () => ctx.platform.models.skillSet()), ctx.onDecision);
    },
  },
  llm: LLM_TEAM,
  planner: PLANNER_TEAM,
  human: {
    id: 'human',
    description: 'A person controls an agent in the browser beside an AI teammate.',
    acts: { by: 'person' },
    needs: () => ({ ...NEEDS_NOTHING, person: true }),
    create: () => {
      throw new TeamUnavailable('human', 'a person plays in the browser (npm start)');
    },
  },
};

export function isTeamId(id: string): id is TeamId {
  return (TEAM_IDS as readonly string[]).includes(id);
}

/** The entry of a bare team id. */
export function teamEntry(id: string): TeamEntry {
  if (!isTeamId(id)) throw new Error(`unknown team id '${id}': expected one of ${TEAM_IDS.join(', ')}`);
  return ENTRIES[id];
}

export function teamEntries(): readonly TeamEntry[] {
  return TEAM_IDS.map((id) => ENTRIES[id]);
}

/** A team as written (a bare id or a variant), validated against its entry. */
export interface ResolvedTeam {
  readonly entry: TeamEntry;
  readonly variant: TeamVariant;
}

/** Read `id` or `id:key=value...`; throws naming an unknown id, an unknown key or a bad value. */
export function resolveTeam(text: string): ResolvedTeam {
  const spec = parseTeamSpec(text);
  const entry = teamEntry(spec.id);
  const settings = readVariant(spec.id, entry.variantSchema, spec.settings);
  return { entry, variant: { name: formatTeamSpec(spec), settings } };
}

/** The canonical name of a team as written (settings in alphabetical order). */
export function teamName(text: string): string {
  return resolveTeam(text).variant.name;
}

export async function createTeam(text: string, ctx: TeamContext): Promise<TeamController> {
  const { entry, variant } = resolveTeam(text);
  return entry.create(ctx, variant);
}

export type TeamAvailability = { readonly ok: true; readonly needs: TeamNeeds } | { readonly ok: false; readonly needs: TeamNeeds; readonly reason: string };

/** Whether a team (or variant) can play on this platform, and if not why, read from its needs (nothing is built). */
export async function teamAvailability(text: string, platform: Platform): Promise<TeamAvailability> {
  const { entry, variant } = resolveTeam(text);
  const needs = await entry.needs(platform, variant);
  const no = (reason: string): TeamAvailability => ({ ok: false, needs, reason });
  if (needs.person && !platform.person) return no('a person plays in the browser (npm start)');
  if (needs.languageModel) {
    const llm = await (needs.llm ?? platform.llm).availability();
    if (!llm.ok) return no(llm.help ? `${llm.reason}; ${llm.help}` : llm.reason);
  }
  for (const name of needs.models) {
    const missing = await platform.models.unavailable(name);
    if (missing) return no(needs.modelsHint ? `${missing} (${needs.modelsHint})` : missing);
  }
  return { ok: true, needs };
}

/** What a team declares it needs on this platform. */
export async function teamNeeds(text: string, platform: Platform): Promise<TeamNeeds> {
  const { entry, variant } = resolveTeam(text);
  return entry.needs(platform, variant);
}
