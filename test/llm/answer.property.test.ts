/**
 * Property-based tests of the LLM answer parser: whatever a model writes (random text,
 * near-miss answers, long and adversarial text) the parser returns one skill per agent or
 * an invalid answer with a reason, never throws, and reads an answer written in either
 * format wherever it sits in the text. Long inputs finish: no pattern backtracks without end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INVALID_ANSWER_KINDS, type ParsedAnswer, parseAnswer } from '../../src/llm';
import { SKILL_IDS, SKILLS } from '../../src/skills';

const RUNS = { numRuns: 300, seed: 41 };

function expectWellFormed(parsed: ParsedAnswer, agents: number): void {
  if (parsed.ok) {
    expect(parsed.skills).toHaveLength(agents);
    for (const s of parsed.skills) expect(SKILL_IDS).toContain(s);
    if (parsed.rationale !== undefined) expect(parsed.rationale.length).toBeLessThanOrEqual(200);
  } else {
    expect(INVALID_ANSWER_KINDS).toContain(parsed.kind);
    expect(parsed.reason.length).toBeGreaterThan(0);
    expect(parsed.reason.length).toBeLessThan(300);
  }
}

const agents = fc.integer({ min: 1, max: 4 });
const skill = fc.constantFrom(...SKILL_IDS);
/** A skill as models write it in the compact format: its number, its id or its name, in any case. */
const written = skill.chain((id) => fc.constantFrom(String(SKILLS[id].number), id, SKILLS[id].name, SKILLS[id].name.toUpperCase()).map((text) => ({ id, text })));
const prose = fc.string({ maxLength: 80, unit: 'grapheme-ascii' }).map((s) => s.replace(/[\d{}]/g, ' '));
const noise = fc.oneof(
  fc.string({ maxLength: 300, unit: 'binary' }),
  fc.string({ maxLength: 300, unit: 'grapheme-ascii' }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.array(fc.constantFrom('1', '2', ',', ' ', '{', '}', '"', 'skills', ':', '[', ']', '<think>', '</think>', '```', '\n', 'secure', 'Answer:'), { maxLength: 80 }).map((parts) => parts.join('')),
);

describe('parseAnswer, on whatever a model writes', () => {
  it('random and near-miss text gives an answer or a reason, never a throw', () => {
    fc.assert(fc.property(noise, agents, (text, n) => expectWellFormed(parseAnswer(text, n), n)), RUNS);
  });

  it('a compact answer on its own last line is read, whatever prose comes before', () => {
    fc.assert(
      fc.property(prose, fc.array(written, { minLength: 1, maxLength: 4 }), (before, items) => {
        const parsed = parseAnswer(`${before}\n${items.map((i) => i.text).join(', ')}`, items.length);
        expect(parsed).toMatchObject({ ok: true, skills: items.map((i) => i.id) });
      }),
      RUNS,
    );
  });

  it('a JSON answer is read wherever it sits, with prose around it', () => {
    fc.assert(
      fc.property(prose, prose, fc.array(skill, { minLength: 1, maxLength: 4 }), fc.string({ maxLength: 300 }), (before, after, skills, rationale) => {
        const parsed = parseAnswer(`${before}\n${JSON.stringify({ skills, rationale })}\n${after}`, skills.length);
        expect(parsed).toMatchObject({ ok: true, skills, format: 'json' });
        expectWellFormed(parsed, skills.length);
      }),
      RUNS,
    );
  });

  it('an unclosed <think> block (an answer cut off mid-thought) is thought, not an answer', () => {
    expect(parseAnswer('<think>agent 1 should 3,2 or maybe', 2)).toMatchObject({ ok: false, kind: 'empty' });
    expect(parseAnswer('<think>done</think>3,2<think>more', 2)).toMatchObject({ ok: true, skills: ['secure', 'combat'] });
  });

  it('the wrong number of skills is a wrong-count, not a guess', () => {
    fc.assert(
      fc.property(fc.array(skill, { minLength: 1, maxLength: 5 }), agents, (skills, n) => {
        fc.pre(skills.length !== n);
        expect(parseAnswer(skills.join(', '), n)).toMatchObject({ ok: false, kind: 'wrong-count' });
      }),
      RUNS,
    );
  });

  it('long adversarial answers finish (no runaway backtracking) and stay well formed', () => {
    const piece = fc.constantFrom('1,', '1 ,', ' ', '"', '<think>', '{', 'a', ':', '2.', '[', '```', '\\');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1000, max: 8000 }), fc.constantFrom('', 'x', '1,2', '}'), (parts, times, tail) => {
        const text = parts.join('').repeat(Math.ceil(times / parts.length)) + tail;
        expectWellFormed(parseAnswer(`answer: ${text}`, 2), 2);
      }),
      { ...RUNS, numRuns: 60 },
    );
  });
});
