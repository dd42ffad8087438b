import { describe, expect, it } from 'vitest';
import { LlmCounters, formatCounters, rulesAgreementText } from '../../src/llm';

describe('LlmCounters rules agreement', () => {
  it('counts each living agent once, and apart where the current skill differs from the rules', () => {
    const c = new LlmCounters();
    // Agent 1 agrees where it was already running the rules' skill; agent 2 agrees where it had to change.
    c.agreement(['secure', 'combat'], { rules: ['secure', 'combat'], current: ['secure', 'navigate'] });
    // Agent 1 keeps its skill against the rules; agent 2 is eliminated and not counted.
    c.agreement(['navigate', 'retreat'], { rules: ['combat', null], current: ['navigate', 'retreat'] });
    const { rules } = c.snapshot();
    expect(rules).toEqual({ choices: 3, agreed: 2, heldOut: { choices: 2, agreed: 1 } });
    expect(rulesAgreementText(rules)).toBe("agrees with the tree's rules on 66.7% of 3 choices in play; 50.0% of 2 where the current skill differs");
    expect(formatCounters('llm blue', c.snapshot())).toContain('66.7% of 3 choices in play');
  });

  it('says nothing of the rules before an answer was applied', () => {
    const c = new LlmCounters();
    expect(c.snapshot().rules).toEqual({ choices: 0, agreed: 0, heldOut: { choices: 0, agreed: 0 } });
    expect(formatCounters('llm blue', c.snapshot())).not.toContain('rules');
  });
});
