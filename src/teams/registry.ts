/**
 * The team ids users type (`--blue bt-scripted`), what each is, and how to build it.
 * Teams that need something not present (trained models, an LLM, a person) say so.
 */
import { SCRIPTED_SKILLS, loadModel, loadSkillSet } from '../skills';
import { BehaviorTreeStrategist } from './behaviorTree';
import type { TeamContext, TeamController } from './controller';
import { FlatController } from './flat';
import { HEURISTIC_POLICY } from './heuristic';
import { HierarchicalController } from './hierarchical';
import { defaultLlmTeamEntry } from './llm';
import { RandomStrategist } from './randomStrategist';

export const TEAM_IDS = ['heuristic', 'bt', 'bt-scripted', 'llm', 'flat', 'random', 'human'] as const;
export type TeamId = (typeof TEAM_IDS)[number];

export interface TeamEntry {
  readonly id: TeamId;
  readonly description: string;
  /** Builds the controller, or throws an Error saying what is missing. */
  create(ctx: TeamContext): TeamController | Promise<TeamController>;
}

/** Seconds between decisions of the random ablation (the LLM's 2 Hz). */
const RANDOM_PERIOD_SECONDS = 0.5;

function unavailable(id: TeamId, reason: string): never {
  throw new Error(`team '${id}' is not available: ${reason}`);
}

/** Load what a model-backed team needs, or say why the team is unavailable. */
async function withModels<T>(id: TeamId, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    return unavailable(id, (err as Error).message);
  }
}

const entries: Record<TeamId, TeamEntry> = {
  heuristic: {
    id: 'heuristic',
    description: 'Go to the zone and shoot; no coordination, no retreat (the study\'s training opponent).',
    create: (ctx) => new FlatController('heuristic', ctx.team, HEURISTIC_POLICY),
  },
  'bt-scripted': {
    id: 'bt-scripted',
    description: 'Behavior tree choosing among the four scripted skills, one agent securing.',
    create: (ctx) =>
      new HierarchicalController(
        'bt-scripted',
        ctx.team,
        new BehaviorTreeStrategist(ctx.config.skillEveryTicks),
        SCRIPTED_SKILLS,
        ctx.onDecision,
      ),
  },
  random: {
    id: 'random',
    description: 'A random skill per agent every 0.5 s over the scripted skills (an ablation).',
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
    description: 'Behavior tree choosing among the four trained RL skills (the study\'s BT baseline).',
    create: async (ctx) =>
      new HierarchicalController(
        'bt',
        ctx.team,
        new BehaviorTreeStrategist(ctx.config.skillEveryTicks),
        await withModels('bt', () => loadSkillSet()),
        ctx.onDecision,
      ),
  },
  flat: {
    id: 'flat',
    description: 'One trained RL policy per agent, no strategist (the study\'s flat RL).',
    create: async (ctx) => new FlatController('flat', ctx.team, await withModels('flat', () => loadModel('flat'))),
  },
  // Available where a model is configured (OPENAI_BASE_URL, OPENAI_API_KEY, LLM_MODEL in
  // Node; the server's proxy in the page); otherwise creating it says how to configure one.
  llm: defaultLlmTeamEntry(),
  human: {
    id: 'human',
    description: 'A person controls an agent in the browser beside an AI teammate.',
    create: () => unavailable('human', 'a person plays in the browser (npm start)'),
  },
};

/** Replace or add an entry (trained models and the LLM register themselves when present). */
export function registerTeam(entry: TeamEntry): void {
  entries[entry.id] = entry;
}

export function isTeamId(id: string): id is TeamId {
  return (TEAM_IDS as readonly string[]).includes(id);
}

export function teamEntry(id: string): TeamEntry {
  if (!isTeamId(id)) throw new Error(`unknown team id '${id}': expected one of ${TEAM_IDS.join(', ')}`);
  return entries[id];
}

export function teamEntries(): readonly TeamEntry[] {
  return TEAM_IDS.map((id) => entries[id]);
}

export async function createTeam(id: string, ctx: TeamContext): Promise<TeamController> {
  return teamEntry(id).create(ctx);
}
