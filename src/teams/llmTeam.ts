/**
 * The `llm` team: the language-model strategist over the trained skills (the study's
 * LLM+RL), or over the scripted ones where the settings say LLM_SKILLS=scripted. The model,
 * its settings and the decision cache come from the platform's LlmAccess, so one entry
 * plays in Node (a model server) and in the page (the product's proxy).
 */
import { LlmUnavailable, type LlmConnection } from '../llm';
import { SCRIPTED_SKILLS, SKILL_IDS, type SkillSet } from '../skills';
import type { TeamContext, TeamController } from './controller';
import { type TeamEntry, TeamUnavailable } from './entry';
import { HierarchicalController } from './hierarchical';
import { LlmStrategist, type LlmStrategistOptions } from './llmStrategist';

export const LLM_TEAM_DESCRIPTION =
  "A language model choosing each agent's skill at 2 Hz and on events over the trained skills (the study's LLM+RL; LLM_SKILLS=scripted for the scripted ones).";

const SCRIPTED_HINT = 'or set LLM_SKILLS=scripted';

export interface LlmTeamOptions extends Omit<LlmStrategistOptions, 'tickHz'> {
  /** The skills the strategist chooses among; default the scripted ones. */
  readonly skills?: SkillSet;
}

/** The `llm` team for one match, from strategist options given directly (tests, benchmarks). */
export function createLlmTeam(ctx: TeamContext, options: LlmTeamOptions): HierarchicalController {
  const { skills, ...rest } = options;
  const strategist = new LlmStrategist({ ...rest, tickHz: ctx.config.tickHz });
  return new HierarchicalController('llm', ctx.team, strategist, skills ?? SCRIPTED_SKILLS, ctx.onDecision);
}

/** The strategist options a connection gives. */
export function strategistOptions(connection: LlmConnection, ctx: TeamContext): Omit<LlmTeamOptions, 'skills'> {
  const s = connection.settings;
  return {
    client: connection.client,
    provider: connection.provider,
    format: s.format,
    temperature: s.temperature,
    timeoutMs: s.timeoutMs,
    rateHz: s.rateHz,
    events: s.events,
    timing: s.timing,
    cache: connection.cache,
    clock: ctx.platform.clock,
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
  };
}

/** The LLM strategist behind a controller, if it has one (for counters and the panel). */
export function llmStrategistOf(controller: TeamController): LlmStrategist | null {
  const strategist = (controller as { strategist?: unknown }).strategist;
  return strategist instanceof LlmStrategist ? strategist : null;
}

async function connect(ctx: TeamContext): Promise<LlmConnection> {
  try {
    return await ctx.platform.llm.connect();
  } catch (err) {
    throw new TeamUnavailable('llm', err instanceof LlmUnavailable ? err.message : `the language model cannot start: ${(err as Error).message}`);
  }
}

export const LLM_TEAM: TeamEntry = {
  id: 'llm',
  description: LLM_TEAM_DESCRIPTION,
  async needs(platform) {
    const availability = await platform.llm.availability();
    const trained = !availability.ok || availability.settings.skills === 'rl';
    return { models: trained ? SKILL_IDS : [], languageModel: true, person: false, modelsHint: SCRIPTED_HINT };
  },
  async create(ctx) {
    const connection = await connect(ctx);
    let skills: SkillSet = SCRIPTED_SKILLS;
    if (connection.settings.skills === 'rl') {
      try {
        skills = await ctx.platform.models.skillSet();
      } catch (err) {
        throw new TeamUnavailable('llm', `LLM_SKILLS=rl needs the trained skills: ${(err as Error).message} (${SCRIPTED_HINT})`);
      }
    }
    return createLlmTeam(ctx, { ...strategistOptions(connection, ctx), skills });
  },
};
