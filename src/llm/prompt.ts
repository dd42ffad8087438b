/**
 * The strategist's prompt: a static system prompt (the rules, when each skill fits, the
 * coordination rule, the answer format) and a short user prompt with the discretised
 * state. The system prompt depends only on the game config, the answer format and the
 * team size, so it is byte-identical across a match and servers can cache its prefix.
 * The user prompt holds bands, never raw numbers that change every tick (seconds left,
 * positions), so equal situations give equal prompts and the decision cache hits.
 */
import { type AgentSituation, DEFAULT_CONFIG, type GameConfig, SITUATION_THRESHOLDS, type TeamSituation } from '../sim';
import { SKILL_IDS, SKILLS, type SkillId } from '../skills';
import type { ChatMessage, ChatRequest, JsonSchemaFormat } from './chat';
import { TERSE_LEGEND, terseState } from './terseState';

export const ANSWER_FORMATS = ['compact', 'json', 'terse'] as const;
/**
 * 'compact': the study's "1,3"; 'json': {"skills": [...], "rationale": "..."}; 'terse': the
 * compact answer to the state in one-token codes (terseState.ts), for small local models,
 * which read a prompt's every token on the CPU.
 */
export type AnswerFormat = (typeof ANSWER_FORMATS)[number];

const pct = (fraction: number) => `${Math.round(fraction * 100)}%`;

function skillLines(): string {
  return SKILL_IDS.map((id) => `${SKILLS[id].number}. ${SKILLS[id].name} (${id}): ${SKILLS[id].description}`).join('\n');
}

/** Whether the format's answer is the compact "1,3" (its state in words or in codes). */
export function answersCompact(format: AnswerFormat): boolean {
  return format !== 'json';
}

function answerInstructions(format: AnswerFormat, agentCount: number): string {
  const agents = Array.from({ length: agentCount }, (_, i) => `agent ${i + 1}`).join(', ');
  if (answersCompact(format)) {
    const example = ['1', '3', '2', '4'].slice(0, agentCount).join(',');
    return [
      `Answer with one skill number per agent, in agent order (${agents}), separated by commas, for example "${example}".`,
      'Write nothing else.',
    ].join('\n');
  }
  const example = JSON.stringify({ skills: ['secure', 'combat', 'navigate', 'retreat'].slice(0, agentCount), rationale: 'Agent 1 holds the zone while agent 2 guards it.' });
  return [
    `Answer with JSON only: an object with "skills", one skill name per agent in agent order (${agents}), each one of ${SKILL_IDS.join(', ')}, and "rationale", one short line.`,
    `Example: ${example}`,
  ].join('\n');
}

const systemCache = new Map<string, string>();

/**
 * The static system prompt; `style` (a persona's play style) goes after the coordination
 * rule. Memoised: the same string object for the same inputs.
 */
export function systemPrompt(format: AnswerFormat = 'compact', agentCount = 2, config: GameConfig = DEFAULT_CONFIG, style?: string): string {
  const key = `${format}|${agentCount}|${config.winHoldSeconds}|${config.progressKeptOnElimination}|${config.respawnDelay}|${config.pickups.respawn}|${config.episodeSeconds}|${style ?? ''}`;
  const cached = systemCache.get(key);
  if (cached) return cached;
  const t = SITUATION_THRESHOLDS;
  const text = [
    `You command a team of ${agentCount} agents in a top-down King-of-the-Hill game against another team of ${agentCount}.`,
    '',
    'Rules:',
    `- One circular capture zone. A team gains progress while only its agents are inside; ${config.winHoldSeconds} s of progress wins.`,
    `- When an agent is eliminated its team keeps ${pct(config.progressKeptOnElimination)} of its progress; the agent respawns at its base after ${config.respawnDelay} s.`,
    `- Health pickups restore full health and come back ${config.pickups.respawn} s after being taken.`,
    `- After ${config.episodeSeconds} s without a winner the game is a draw.`,
    '',
    'Skills (each agent runs the one you choose until your next choice):',
    skillLines(),
    '',
    `Coordination: one agent secures the zone while the ${agentCount > 2 ? 'others defend' : 'other defends'} its perimeter with Combat. Never let two agents secure at once. A badly hurt agent retreats to a pickup when one is present. Eliminated agents respawn at base: send them back with Navigate.`,
    '',
    `State words: health HIGH (above ${pct(t.healthHigh)}), MEDIUM, LOW (below ${pct(t.healthMedium)}); distances NEAR, MID, FAR; time left PLENTY, LIMITED, URGENT; progress in % of the hold that wins.`,
    ...(format === 'terse' ? [TERSE_LEGEND] : []),
    '',
    ...(style ? [`Play style: ${style}`, ''] : []),
    answerInstructions(format, agentCount),
  ].join('\n');
  systemCache.set(key, text);
  return text;
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

function agentLine(a: AgentSituation, slot: number, skill: SkillId | undefined): string {
  const current = skill ? SKILLS[skill].name : 'none';
  if (!a.alive) return `Agent ${slot + 1}: eliminated, respawning at base; skill ${current}.`;
  const enemy = a.enemyVisible ? `yes, ${a.enemy}` : 'no';
  const pickup = a.pickupPresent ? `yes, ${a.pickup}` : 'no';
  return `Agent ${slot + 1}: health ${a.health}; zone ${a.zone}, in zone ${yesNo(a.inZone)}; enemy visible ${enemy}; pickup present ${pickup}; skill ${current}.`;
}

function zoneWords(s: TeamSituation): string {
  if (s.zoneStatus === 'empty') return 'empty';
  if (s.zoneStatus === 'contested') return 'contested';
  return s.zoneStatus === s.teamName ? 'held by us' : 'held by the enemy';
}

/** How far apart the team stands: its two agents, or in a bigger team its two closest living ones. */
function spacingWords(s: TeamSituation): string {
  if (s.agents.length <= 2) return `agents apart ${s.allyDistance ?? 'n/a (one eliminated)'}`;
  return `closest agents apart ${s.allyDistance ?? 'n/a (fewer than two alive)'}`;
}

/** The per-state part: a few lines, per agent then per team; in codes for the terse format. */
export function userPrompt(situation: TeamSituation, current: readonly SkillId[], format: AnswerFormat = 'compact'): string {
  if (format === 'terse') return terseState(situation, current);
  const lines = situation.agents.map((a, slot) => agentLine(a, slot, current[slot]));
  lines.push(
    `Team: ${spacingWords(situation)}; time ${situation.time}; zone ${zoneWords(situation)}; progress us ${situation.progressPercent}%, enemy ${situation.enemyProgressPercent}%.`,
  );
  return lines.join('\n');
}

/** The response_format for JSON answers: exactly `agentCount` skill names and a rationale. */
export function decisionJsonSchema(agentCount: number): JsonSchemaFormat {
  return {
    type: 'json_schema',
    json_schema: {
      name: 'hillmind_decision',
      strict: true,
      schema: {
        type: 'object',
        properties: {
          skills: { type: 'array', items: { type: 'string', enum: [...SKILL_IDS] }, minItems: agentCount, maxItems: agentCount },
          rationale: { type: 'string' },
        },
        required: ['skills', 'rationale'],
        additionalProperties: false,
      },
    },
  };
}

/** Default answer budgets: the compact answer is a few tokens; JSON carries a rationale. */
export const DEFAULT_MAX_TOKENS: Readonly<Record<AnswerFormat, number>> = { compact: 16, json: 120, terse: 16 };

export interface PromptOptions {
  readonly format: AnswerFormat;
  readonly temperature: number;
  /** 0 sends no bound. */
  readonly maxTokens?: number;
  readonly config?: GameConfig;
  /** A persona's play style for the system prompt. */
  readonly style?: string;
}

export function buildMessages(situation: TeamSituation, current: readonly SkillId[], format: AnswerFormat, config?: GameConfig, style?: string): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt(format, situation.agents.length, config, style) },
    { role: 'user', content: userPrompt(situation, current, format) },
  ];
}

/** The whole chat request for one decision. */
export function buildRequest(situation: TeamSituation, current: readonly SkillId[], options: PromptOptions): ChatRequest {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS[options.format];
  return {
    messages: buildMessages(situation, current, options.format, options.config, options.style),
    temperature: options.temperature,
    ...(maxTokens > 0 ? { maxTokens } : {}),
    ...(answersCompact(options.format)
      ? { numberList: { count: situation.agents.length, max: SKILL_IDS.length } }
      : { responseFormat: decisionJsonSchema(situation.agents.length) }),
  };
}
