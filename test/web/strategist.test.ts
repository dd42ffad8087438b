import { describe, expect, it } from 'vitest';
import type { TimedDecision } from '../../src/teams';
import { decisionMeta, skillsLine } from '../../src/web/panels/strategist';

describe('the strategist panel in words', () => {
  it('names each agent with its skill, leaving out the agents people play', () => {
    expect(skillsLine(0, ['navigate', 'secure'], [])).toBe('Blue 1 Navigate · Blue 2 Secure');
    expect(skillsLine(1, ['combat', 'retreat'], [])).toBe('Red 1 Combat · Red 2 Retreat');
    expect(skillsLine(0, ['navigate', 'secure'], [0])).toBe('Blue 2 Secure');
    expect(skillsLine(0, ['navigate', 'secure'], [0, 1])).toBe('');
  });

  it('says who decided and when, how long the language model took, and how many flips a line folds', () => {
    const bt = { decision: { tick: 15, team: 0, skills: ['navigate', 'secure'], source: 'behavior-tree' } as TimedDecision, since: 0, count: 4 } as const;
    expect(decisionMeta(bt, 50)).toBe('by behavior tree at 0:00.3 · 4 changes since 0:00.0');
    const llm: TimedDecision = {
      tick: 110,
      team: 1,
      skills: ['combat', 'combat'],
      source: 'llm',
      rationale: 'they are near',
      timing: { requestTick: 100, latencyMs: 812.4, trigger: 'periodic', cached: false },
    };
    expect(decisionMeta({ decision: llm, since: 110, count: 1 }, 50)).toBe('by language model at 0:02.2 (asked at 0:02.0 on periodic, 812 ms)');
    const cached = { ...llm, timing: { ...llm.timing!, cached: true } };
    expect(decisionMeta({ decision: cached, since: 110, count: 1 }, 50)).toMatch(/, cached\)$/);
  });
});
