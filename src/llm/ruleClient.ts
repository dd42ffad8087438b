/**
 * An offline chat client that answers at once by reading the prompt the way a careful
 * model would (retreat when LOW with a pickup, one agent secures near the zone and the
 * other fights, engage a visible enemy, else navigate). For benchmarks of the
 * strategist's own cost, tests, and trying the `llm` plumbing without a model.
 */
import { SKILLS, type SkillId } from '../skills';
import type { ChatClient, ChatRequest, ChatResponse } from './chat';
import { type AgentFacts, ELIMINATED_FACTS, terseAgentFacts } from './terseState';
import { estimateTokens } from './tokens';

/** What the words form (prompt.ts userPrompt) says of each agent. */
function wordsAgentFacts(userPrompt: string): AgentFacts[] {
  return userPrompt
    .split('\n')
    .filter((line) => /^Agent \d+:/.test(line))
    .map((line) =>
      line.includes('eliminated')
        ? ELIMINATED_FACTS
        : {
            alive: true,
            low: line.includes('health LOW'),
            pickup: line.includes('pickup present yes'),
            nearZone: line.includes('in zone yes') || line.includes('zone NEAR'),
            enemy: line.includes('enemy visible yes'),
          },
    );
}

/** The skill per agent a careful strategist picks from a user prompt, in words or terse (see prompt.ts). */
export function ruleSkills(userPrompt: string): SkillId[] {
  const words = wordsAgentFacts(userPrompt);
  const agents = words.length > 0 ? words : terseAgentFacts(userPrompt);
  let securing = false;
  return agents.map((a): SkillId => {
    if (!a.alive) return 'navigate';
    if (a.low && a.pickup) return 'retreat';
    if (a.nearZone && !securing) {
      securing = true;
      return 'secure';
    }
    return a.nearZone || a.enemy ? 'combat' : 'navigate';
  });
}

/** The answer text in the format the request asks for. */
export function ruleAnswerText(request: ChatRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const skills = ruleSkills(user);
  const wantsJson = Boolean(request.responseFormat) || request.messages.some((m) => m.role === 'system' && m.content.includes('Answer with JSON'));
  if (!wantsJson) return skills.map((s) => SKILLS[s].number).join(',');
  const secure = skills.indexOf('secure');
  const rationale = secure >= 0 ? `Agent ${secure + 1} holds the zone; the others cover it.` : 'Move up and fight for the zone.';
  return JSON.stringify({ skills, rationale });
}

export class RuleChatClient implements ChatClient {
  calls = 0;
  constructor(readonly model = 'rules') {}

  async complete(request: ChatRequest): Promise<ChatResponse> {
    this.calls++;
    const text = ruleAnswerText(request);
    return {
      text,
      promptTokens: request.messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 0),
      completionTokens: estimateTokens(text),
      model: this.model,
    };
  }
}
