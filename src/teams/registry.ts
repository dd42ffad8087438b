/**
 * The team ids users type (`--blue bt-scripted`), what each is, what it needs, and how to
 * build it on the platform in its context. Whether a team plays here is read from its
 * declared needs (teamAvailability), so no caller special-cases a team.
 */
import { SCRIPTED_SKILLS, SKILL_IDS } from '../skills';
import { BehaviorTreeStrategist } from './behaviorTree';
import type { TeamContext, TeamController } from './controller';
import { NEEDS_NOTHING, TEAM_IDS, type TeamEntry, type TeamId, type TeamNeeds, TeamUnavailable } from './entry';
import { FlatController } from './flat';
import { HEURISTIC_POLICY } from './heuristic';
import { HierarchicalController } from './hierarchical';
import { LLM_TEAM } from './llmTeam';
import type { Platform } from './platform';
import { RandomStrategist } from './randomStrategist';

/** Seconds between decisions of the random ablation (the LLM's 2 Hz). */
const RANDOM_PERIOD_SECONDS = 0.5;

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
    create: (ctx) => new FlatController('heuristic', ctx.team, HEURISTIC_POLICY),
  },
  'bt-scripted': {
    id: 'bt-scripted',
    description: 'Behavior tree choosing among the four scripted skills, one agent securing.',
    acts: { by: 'skills', source: 'behavior-tree', skillSets: ['scripted'] },
    needs: () => NEEDS_NOTHING,
    create: (ctx) =>
      new HierarchicalController('bt-scripted', ctx.team, new BehaviorTreeStrategist(ctx.config.skillEveryTicks), SCRIPTED_SKILLS, ctx.onDecision),
  },
  random: {
    id: 'random',
    description: 'A random skill per agent every 0.5 s over the scripted skills (an ablation).',
    acts: { by: 'skills', source: 'random', skillSets: ['scripted'] },
    needs: () => NEEDS_NOTHING,
    create: (ctx) =>
      new HierarchicalController(
        'random',
        ctx.team,
        new RandomStrategist(Math.round(RANDOM_PERIOD_SECONDS * ctx.config.tickHz), ctx.seed),
        SCRIPTED_SKILLS,
        ctx.onDecision,
      ),
  },
  bt: {
    id: 'bt',
    description: "Behavior tree choosing among the four trained RL skills (the study's BT baseline).",
    acts: { by: 'skills', source: 'behavior-tree', skillSets: ['trained'] },
    needs: () => TRAINED_SKILLS,
    create: async (ctx) =>
      new HierarchicalController(
        'bt',
        ctx.team,
        new BehaviorTreeStrategist(ctx.config.skillEveryTicks),
        await withModels('bt', () => ctx.platform.models.skillSet()),
        ctx.onDecision,
      ),
  },
  flat: {
    id: 'flat',
    description: "One trained RL policy per agent, no strategist (the study's flat RL).",
    acts: { by: 'policy', policy: { model: 'flat' } },
    needs: () => ({ ...NEEDS_NOTHING, models: ['flat'] }),
    create: async (ctx) => new FlatController('flat', ctx.team, await withModels('flat', () => ctx.platform.models.load('flat'))),
  },
  llm: LLM_TEAM,
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

export function teamEntry(id: string): TeamEntry {
  if (!isTeamId(id)) throw new Error(`unknown team id '${id}': expected one of ${TEAM_IDS.join(', ')}`);
  return ENTRIES[id];
}

export function teamEntries(): readonly TeamEntry[] {
  return TEAM_IDS.map((id) => ENTRIES[id]);
}

export async function createTeam(id: string, ctx: TeamContext): Promise<TeamController> {
  return teamEntry(id).create(ctx);
}

export type TeamAvailability = { readonly ok: true; readonly needs: TeamNeeds } | { readonly ok: false; readonly needs: TeamNeeds; readonly reason: string };

/** Whether a team can play on this platform, and if not why, read from its needs (nothing is built). */
export async function teamAvailability(id: string, platform: Platform): Promise<TeamAvailability> {
  const entry = teamEntry(id);
  const needs = await entry.needs(platform);
  const no = (reason: string): TeamAvailability => ({ ok: false, needs, reason });
  if (needs.person && !platform.person) return no('a person plays in the browser (npm start)');
  if (needs.languageModel) {
    const llm = await platform.llm.availability();
    if (!llm.ok) return no(llm.help ? `${llm.reason}; ${llm.help}` : llm.reason);
  }
  for (const name of needs.models) {
    const missing = await platform.models.unavailable(name);
    if (missing) return no(needs.modelsHint ? `${missing} (${needs.modelsHint})` : missing);
  }
  return { ok: true, needs };
}
