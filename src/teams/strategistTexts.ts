/**
 * Every text the language-model strategist can put before the model, and the answers it
 * reads back: the system prompts (each format, team size and persona's play style), the
 * chat template around them, each agent's and team's line in each format, and the answers. The strategist's derived model (llm/node/derivedModel.ts)
 * keeps the tokens of these texts and no others, so a text missing here would reach the
 * model in other tokens: a change to the prompts shows in the derived model's digest
 * (test/llm/derivedModel.test.ts).
 *
 * The state lines are enumerated line by line: no token spans a line break, and none holds
 * a digit but a lone one (Gemma's vocabulary splits numbers), so every band, flag and skill
 * on each line, with any digits, covers every line the game can give.
 */
import { ANSWER_FORMATS, contentFreeState, gemmaChatText, systemPrompt, userPrompt } from '../llm';
import { type AgentSituation, DEFAULT_CONFIG, GAME_LIMITS, type TeamSituation } from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import { PERSONAS } from './personas';

const HEALTH = ['HIGH', 'MEDIUM', 'LOW'] as const;
const BANDS = ['NEAR', 'MID', 'FAR'] as const;
const TIMES = ['PLENTY', 'LIMITED', 'URGENT'] as const;
const ZONES = ['empty', 'contested', 'blue', 'red'] as const;

/** Each agent line the state can hold: alive in every band and flag, and eliminated. */
function agentVariants(): AgentSituation[] {
  const variants: AgentSituation[] = [{ agent: 0, alive: false, health: 'LOW', zone: 'FAR', inZone: false, enemyVisible: false, enemy: null, pickupPresent: false, pickup: null }];
  for (const health of HEALTH)
    for (const zone of BANDS)
      for (const inZone of [false, true])
        for (const enemy of [null, ...BANDS])
          for (const pickup of [null, ...BANDS]) {
            variants.push({ agent: 0, alive: true, health, zone, inZone, enemyVisible: enemy !== null, enemy, pickupPresent: pickup !== null, pickup });
          }
  return variants;
}

/** Situations whose lines, together, are every agent line (with every skill) and every team line. */
function situations(): { situation: TeamSituation; current: SkillId[] }[] {
  const base = { team: 0, teamName: 'blue', time: 'PLENTY', secondsLeft: 60, progressPercent: 0, enemyProgressPercent: 0, zoneStatus: 'empty', allyDistance: null } as const;
  const out: { situation: TeamSituation; current: SkillId[] }[] = [];
  const skills: (SkillId | undefined)[] = [undefined, ...SKILL_IDS];
  for (const agent of agentVariants()) {
    for (const skill of skills) {
      const current = skill ? [skill, skill] : [];
      out.push({ situation: { ...base, agents: [agent, { ...agent, agent: 1 }] }, current });
    }
  }
  const alive = agentVariants()[1]!;
  for (const size of [1, 2, 3])
    for (const allyDistance of [null, ...BANDS])
      for (const time of TIMES)
        for (const zoneStatus of ZONES) {
          const agents = Array.from({ length: size }, (_, agent) => ({ ...alive, agent }));
          out.push({ situation: { ...base, agents, allyDistance, time, zoneStatus, progressPercent: 100, enemyProgressPercent: 25 }, current: [] });
        }
  return out;
}

/** Each play style the system prompt can carry: none, and each persona's (llmTeam.ts, the exam and the tuner use no other). */
const styles = (): (string | undefined)[] => [undefined, ...PERSONAS.map((p) => p.prompt)];

/** Answers the strategist reads: compact lists and JSON objects of every skill. */
function answers(): string[] {
  const compact = SKILL_IDS.map((_, i) => String(i + 1)).join(',');
  const json = SKILL_IDS.map((id) => JSON.stringify({ skills: [id, id], rationale: 'Agent 1 holds the zone while agent 2 guards it.' }));
  return [compact, ...json];
}

/** Every printable ASCII character, alone and after a space: any free text still has a token for each. */
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(' ');

/** The texts the strategist's model is asked and answers in (see the header). */
export function strategistTexts(): string[] {
  const texts = new Set<string>([PRINTABLE, ...answers()]);
  for (const format of ANSWER_FORMATS) {
    for (let agents = 1; agents <= GAME_LIMITS.agentsPerTeam; agents++) {
      for (const style of styles()) texts.add(systemPrompt(format, agents, DEFAULT_CONFIG, style));
      texts.add(contentFreeState(agents));
    }
    for (const { situation, current } of situations()) texts.add(userPrompt(situation, current, format));
    // The chat template around a system prompt and a state.
    texts.add(gemmaChatText([{ role: 'system', content: systemPrompt(format) }, { role: 'user', content: contentFreeState(2) }, { role: 'assistant', content: '1,3' }, { role: 'user', content: contentFreeState(2) }]));
  }
  return [...texts];
}
