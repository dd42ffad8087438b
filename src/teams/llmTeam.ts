/**
 * The `llm` team: the language-model strategist over the trained skills (the study's
 * LLM+RL), or over the scripted ones where the settings say LLM_SKILLS=scripted. The model,
 * its settings and the decision cache come from the platform's LlmAccess, so one entry
 * plays in Node (the embedded local engine, or a model server where OPENAI_BASE_URL names
 * one) and in the page (the product's proxy).
 */
import { z } from 'zod';
import { ANSWER_FORMATS, type LlmAccess, LlmUnavailable, connectionOwner, type LlmConnection, type StrategistSettings, EVENT_TRIGGERS_TEXT, parseEventTriggers, strategistSettingsOf } from '../llm';
import { SCRIPTED_SKILLS, SKILL_IDS, type SkillSet } from '../skills';
import type { TeamContext, TeamController } from './controller';
import { type TeamEntry, TeamUnavailable, type TeamVariant } from './entry';
import { HierarchicalController } from './hierarchical';
import { LlmStrategist, type LlmStrategistOptions } from './llmStrategist';
import { PERSONA_NAMES, personaByName } from './personas';
import type { Platform } from './platform';
import { variantNumber } from './variant';

/**
 * What the pickers and the team table say of the llm team, with how the embedded model plays
 * (its strategist exam, npm run llm:exam; the adapter's card, models/strategist-gemma3-270m.json).
 */
export const LLM_TEAM_DESCRIPTION =
  "A language model choosing each agent's skill at 2 Hz and on events over the trained skills (the study's LLM+RL; LLM_SKILLS=scripted for the scripted ones). With no server set, the embedded Gemma 3 270M plays, taught by the adapter the product ships (npm run llm:exam measures it).";

const SCRIPTED_HINT = 'or set LLM_SKILLS=scripted';

/** The settings a strategist asks with, as options given directly may leave them out. */
type AskingSettings = keyof Pick<StrategistSettings, 'format' | 'temperature' | 'timeoutMs' | 'rateHz' | 'events' | 'timing' | 'maxTimeouts' | 'onSilence'>;

export interface LlmTeamOptions extends Omit<LlmStrategistOptions, 'tickHz' | AskingSettings>, Partial<Pick<StrategistSettings, AskingSettings>> {
  /** The skills the strategist chooses among; default the scripted ones. */
  readonly skills?: SkillSet;
}

/** The `llm` team for one match, from strategist options given directly (tests, benchmarks); a setting left out is at its default. */
export function createLlmTeam(ctx: TeamContext, options: LlmTeamOptions, name = 'llm'): HierarchicalController {
  const { skills, format, temperature, timeoutMs, rateHz, events, timing, maxTimeouts, onSilence, ...rest } = options;
  const settings = strategistSettingsOf({ format, temperature, timeoutMs, rateHz, events, timing, maxTimeouts, onSilence });
  const strategist = new LlmStrategist({ ...rest, ...settings, tickHz: ctx.config.tickHz });
  return new HierarchicalController(name, ctx.team, strategist, skills ?? SCRIPTED_SKILLS, ctx.onDecision);
}

/**
 * What an llm variant may set over the LLM settings: `llm:format=json:rate=0`,
 * `llm:events=elimination+respawn` (a '+' list, or all / none), `llm:persona=cautious`,
 * `llm:adapter=none` (the local model without its adapter), `llm:adapter=rules` (another
 * adapter shipped for it).
 */
export const LLM_VARIANT = z.object({
  format: z.enum(ANSWER_FORMATS, { message: `must be one of ${ANSWER_FORMATS.join(', ')}` }).optional(),
  rate: variantNumber(0, 50, 'a number of decisions per second (0: events only)').optional(),
  events: z
    .string()
    .transform((v, ctx) => {
      const parsed = parseEventTriggers(v.replaceAll('+', ','));
      if (!parsed) ctx.addIssue({ code: 'custom', message: `must be all, none or a + list of ${EVENT_TRIGGERS_TEXT}` });
      return parsed ?? [];
    })
    .optional(),
  temperature: variantNumber(0, 2).optional(),
  persona: z.enum(PERSONA_NAMES as [string, ...string[]], { message: `must be one of ${PERSONA_NAMES.join(', ')}` }).optional(),
  skills: z.enum(['rl', 'scripted'], { message: 'must be rl or scripted' }).optional(),
  /** A pulled local model's id (gemma3-270m, smollm2-135m) or, with a server, its model name. */
  model: z.string().regex(/^[A-Za-z0-9._/-]{1,128}$/, { message: 'must be a model id or name (letters, digits, . _ / -)' }).optional(),
  /** none: the local model alone, without the LoRA adapter it ships with (the untuned model); another name: an adapter shipped beside it. */
  adapter: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, { message: "must be none (the local model without its adapter) or the name of an adapter shipped beside the model's own (lower-case letters, digits and -, e.g. rules)" })
    .optional(),
});
type LlmVariant = z.infer<typeof LLM_VARIANT>;

/** The strategist settings with a variant's on top. */
export function variantSettings(base: StrategistSettings, variant: LlmVariant): StrategistSettings {
  return {
    ...base,
    ...(variant.format ? { format: variant.format } : {}),
    ...(variant.rate !== undefined ? { rateHz: variant.rate } : {}),
    ...(variant.events ? { events: variant.events } : {}),
    ...(variant.temperature !== undefined ? { temperature: variant.temperature } : {}),
    ...(variant.skills ? { skills: variant.skills } : {}),
  };
}

/** The strategist options a connection gives, with a variant's settings on top. */
export function strategistOptions(connection: LlmConnection, ctx: TeamContext, variant: LlmVariant = {}): Omit<LlmTeamOptions, 'skills'> {
  const s = variantSettings(connection.settings, variant);
  const style = variant.persona ? personaByName(variant.persona)!.prompt : undefined;
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
    maxTimeouts: s.maxTimeouts,
    onSilence: s.onSilence,
    ...(style ? { style } : {}),
  };
}

/** The LLM strategist behind a controller, if it has one (for counters and the panel). */
export function llmStrategistOf(controller: TeamController): LlmStrategist | null {
  const strategist = (controller as { strategist?: unknown }).strategist;
  return strategist instanceof LlmStrategist ? strategist : null;
}

/** The platform's way to the model the variant names (its own model when it names none). */
function accessFor(platform: Platform, variant: LlmVariant): LlmAccess {
  const { model, adapter, format } = variant;
  if (!model && !adapter) {
    // Only a local model's adapter cares about the format; where the model cannot be switched the variant asks it as it is.
    return format && platform.llm.withModel ? platform.llm.withModel({ format }) : platform.llm;
  }
  const named = [model && `model=${model}`, adapter && `adapter=${adapter}`].filter(Boolean).join(':');
  if (!platform.llm.withModel) throw new TeamUnavailable('llm', `${named}: this language model cannot be switched here (the page plays the server's model)`);
  return platform.llm.withModel({ ...(model ? { model } : {}), ...(adapter ? { adapter } : {}), ...(format ? { format } : {}) });
}

async function connect(ctx: TeamContext, variant: LlmVariant): Promise<LlmConnection> {
  const access = accessFor(ctx.platform, variant);
  try {
    return await access.connect();
  } catch (err) {
    throw new TeamUnavailable('llm', err instanceof LlmUnavailable ? err.message : `the language model cannot start: ${(err as Error).message}`);
  }
}

const llmVariant = (variant: TeamVariant) => variant.settings as LlmVariant;

export const LLM_TEAM: TeamEntry = {
  id: 'llm',
  description: LLM_TEAM_DESCRIPTION,
  variantSchema: LLM_VARIANT,
  // Its answers need the language model (and vary with its build and threads): a replay's are taken as recorded.
  acts: { by: 'skills', source: 'llm', skillSets: ['trained', 'scripted'], decisions: { recorded: "a language model's decisions cannot be derived again without it" } },
  async needs(platform, variant) {
    const access = accessFor(platform, llmVariant(variant));
    const availability = await access.availability();
    const skills = llmVariant(variant).skills ?? (availability.ok ? availability.settings.skills : 'rl');
    return { models: skills === 'rl' ? SKILL_IDS : [], languageModel: true, person: false, modelsHint: SCRIPTED_HINT, ...(connectionOwner(access) !== platform.llm ? { llm: access } : {}) };
  },
  async create(ctx, variant) {
    const connection = await connect(ctx, llmVariant(variant));
    const settings = variantSettings(connection.settings, llmVariant(variant));
    let skills: SkillSet = SCRIPTED_SKILLS;
    if (settings.skills === 'rl') {
      try {
        skills = await ctx.platform.models.skillSet();
      } catch (err) {
        throw new TeamUnavailable('llm', `LLM_SKILLS=rl needs the trained skills: ${(err as Error).message} (${SCRIPTED_HINT})`);
      }
    }
    return createLlmTeam(ctx, { ...strategistOptions(connection, ctx, llmVariant(variant)), skills }, variant.name);
  },
};
