/**
 * The terse state (the `terse` format): the same facts as the words form in a quarter of the
 * words, read back the same by the rule-based client, and made from a words prompt (how
 * lessons written in words teach a terse model) exactly as from the situation itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRequest, parseExamSet, ruleSkills, systemPrompt, terseState, userPrompt, wordsToTerse } from '../../src/llm';
import type { TeamSituation } from '../../src/sim';

/** The first exam set: its situations are this file's fixtures (items picked by index). */
const EXAM_V1 = 'models/strategist-exam.v1.json';
const exam = parseExamSet(readFileSync(EXAM_V1, 'utf8'), EXAM_V1);
const situations = exam.items.map((item) => ({ situation: item.situation as TeamSituation, current: item.current }));

describe('the terse state', () => {
  it('writes one line per agent and a team line in codes', () => {
    const { situation, current } = situations[0]!;
    expect(exam.items[0]!.situation.agents[0]).toMatchObject({ health: 'LOW', zone: 'MID', inZone: false, enemy: 'MID', pickup: 'MID' });
    expect(terseState(situation, current)).toBe(['LOW MID MID MID combat', 'HIGH FAR FAR FAR retreat', 'MID plenty theirs 0 5'].join('\n'));
  });

  it('writes an eliminated agent as dead with its skill, and no ally distance as none', () => {
    const { situation } = situations[0]!;
    const dead: TeamSituation = { ...situation, agents: [{ ...situation.agents[0]!, alive: false }, situation.agents[1]!], allyDistance: null, zoneStatus: situation.teamName };
    expect(terseState(dead, ['navigate', 'secure'])).toBe(['dead navigate', 'HIGH FAR FAR FAR secure', 'none plenty ours 0 5'].join('\n'));
    expect(wordsToTerse(userPrompt(dead, ['navigate', 'secure']))).toBe(terseState(dead, ['navigate', 'secure']));
  });

  it(`is what a words prompt reads as, on all ${situations.length} exam situations`, () => {
    for (const { situation, current } of situations) expect(wordsToTerse(userPrompt(situation, current))).toBe(terseState(situation, current));
  });

  it('is a quarter of the words form or less', () => {
    const words = situations.reduce((n, s) => n + userPrompt(s.situation, s.current).split(/\s+/).length, 0);
    const codes = situations.reduce((n, s) => n + terseState(s.situation, s.current).split(/\s+/).length, 0);
    expect(codes / words).toBeLessThan(0.3);
  });

  it('gives the rule-based client the same answers as the words form', () => {
    for (const { situation, current } of situations) expect(ruleSkills(terseState(situation, current))).toEqual(ruleSkills(userPrompt(situation, current)));
  });

  it('refuses text that is not a words prompt, naming the line', () => {
    expect(() => wordsToTerse('Agent 1: health LOW; zone MID')).toThrow(/^not a strategist prompt line \(expected "Agent N: \.\.\." or one "Team: \.\.\." line\): Agent 1: health LOW; zone MID$/);
    expect(() => wordsToTerse(terseState(situations[0]!.situation, situations[0]!.current))).toThrow(/not a strategist prompt line/);
  });

  it('goes with a system prompt that explains the codes, and asks for the compact answer', () => {
    const { situation, current } = situations[0]!;
    const request = buildRequest(situation, current, { format: 'terse', temperature: 0 });
    expect(request.messages[0]!.content).toBe(systemPrompt('terse', 2));
    expect(request.messages[0]!.content).toContain('IN when inside it');
    expect(request.messages[0]!.content).toContain('Answer with one skill number per agent');
    expect(request.messages[1]!.content).toBe(terseState(situation, current));
    expect(request.numberList).toEqual({ count: 2, max: 4 });
    expect(request.responseFormat).toBeUndefined();
  });
});
