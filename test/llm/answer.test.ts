import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../src/llm';

describe('parseAnswer', () => {
  it.each([
    ['1,3', ['navigate', 'secure']],
    [' 2, 4 \n', ['combat', 'retreat']],
    ['Answer: 3,2', ['secure', 'combat']],
    ['"1, 3"', ['navigate', 'secure']],
    ['```\n3,2\n```', ['secure', 'combat']],
    ['Agent 1 is in the zone so it secures; agent 2 covers.\n3,2', ['secure', 'combat']],
    ['I choose 1, 3.', ['navigate', 'secure']],
    ['<think>agent 1 is hurt: 4,4? no</think>4,2', ['retreat', 'combat']],
    ['secure, combat', ['secure', 'combat']],
    ['Navigate,Retreat', ['navigate', 'retreat']],
  ])('reads the compact answer %j', (text, skills) => {
    const parsed = parseAnswer(text, 2);
    expect(parsed).toMatchObject({ ok: true, skills, format: 'compact' });
  });

  it('reads JSON answers with a one-line rationale, tolerating text and fences around them', () => {
    const parsed = parseAnswer('Here you go:\n```json\n{"skills": ["secure", "combat"], "rationale": "Hold the zone.\\nMore."}\n```', 2);
    expect(parsed).toEqual({ ok: true, skills: ['secure', 'combat'], rationale: 'Hold the zone.', format: 'json' });
    expect(parseAnswer('{"skills":[3,"2"]}', 2)).toMatchObject({ ok: true, skills: ['secure', 'combat'] });
    expect(parseAnswer('{"skills":["Secure","COMBAT"],"rationale":"x"}', 2)).toMatchObject({ ok: true, skills: ['secure', 'combat'] });
  });

  it('reads a compact answer where JSON was asked for, and the other way round', () => {
    expect(parseAnswer('3,2', 2)).toMatchObject({ ok: true, format: 'compact' });
    expect(parseAnswer('{"skills":["navigate","navigate"],"rationale":"go"}', 2)).toMatchObject({ ok: true, format: 'json' });
  });

  it.each([
    ['', 'empty'],
    ['   \n ', 'empty'],
    [null, 'empty'],
    ['<think>hmm</think>', 'empty'],
    ['I am not sure what to do.', 'unparsable'],
    ['{"skill": "secure"}', 'unparsable'],
    ['{not json', 'unparsable'],
    ['1,3,2', 'wrong-count'],
    ['3', 'wrong-count'],
    ['{"skills":["secure"],"rationale":"one"}', 'wrong-count'],
    ['1,7', 'unknown-skill'],
    ['0,1', 'unknown-skill'],
    ['{"skills":["secure","dance"]}', 'unknown-skill'],
  ])('rejects %j as %s with a reason', (text, kind) => {
    const parsed = parseAnswer(text, 2);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.kind).toBe(kind);
      expect(parsed.reason.length).toBeGreaterThan(5);
    }
  });

  it('names the agent and the bad skill', () => {
    const parsed = parseAnswer('{"skills":["secure","dance"]}', 2);
    expect(!parsed.ok && parsed.reason).toMatch(/agent 2: 'dance' is not a skill/);
    const count = parseAnswer('1,3,2', 2);
    expect(!count.ok && count.reason).toMatch(/expected 2 skills \(one per agent\), got 3/);
  });

  it('validates against the team size', () => {
    expect(parseAnswer('1,3,2', 3)).toMatchObject({ ok: true, skills: ['navigate', 'secure', 'combat'] });
    expect(parseAnswer('2', 1)).toMatchObject({ ok: true, skills: ['combat'] });
  });
});
