import { describe, expect, it } from 'vitest';
import { type ChatMessage, systemPrompt } from '../../src/llm';
import { tuningRows } from '../../src/tune/dataset';
import type { Lesson } from '../../src/tune/teachers';

/** Characters as tokens: enough to see what the rows hold. */
const tokenizer = {
  promptTokenIds: (messages: readonly ChatMessage[]) => [...messages.map((m) => m.content).join('|')].map((c) => c.charCodeAt(0)),
  answerTokenIds: (max: number) => ({ numbers: Array.from({ length: max }, (_, i) => 49 + i), comma: 44 }),
};

const lesson = (prompt: string, choice: Lesson['choice'], weight = 1): Lesson => ({ prompt, choice, taught: choice.map(() => true), weight, from: 'test' });

describe('the tuning set', () => {
  it("holds each lesson's whole prompt and the skill numbers less one; equal lessons add their weights", () => {
    const rows = tuningRows([lesson('A', ['secure', 'combat']), lesson('A', ['secure', 'combat'], 2), lesson('A', ['navigate', 'combat'])], tokenizer, { heldOut: 0 });
    expect(rows.map((r) => [r.labels, r.weight, r.split])).toEqual([
      [[2, 1], 3, 'train'],
      [[0, 1], 1, 'train'],
    ]);
    const text = String.fromCharCode(...rows[0]!.tokens);
    expect(text).toMatch(/^You command a team of 2 agents[\s\S]*\|A$/);
  });

  it('puts every lesson of a prompt on the same side of the split, and holds out about the share asked', () => {
    const lessons = Array.from({ length: 400 }, (_, i) => [lesson(`S${i}`, ['secure', 'combat']), lesson(`S${i}`, ['combat', 'secure'])]).flat();
    const rows = tuningRows(lessons, tokenizer, { heldOut: 0.25, seed: 3 });
    const side = new Map<string, Set<string>>();
    for (const r of rows) {
      const prompt = String.fromCharCode(...r.tokens).split('|')[1]!;
      side.set(prompt, (side.get(prompt) ?? new Set()).add(r.split));
    }
    expect([...side.values()].every((s) => s.size === 1)).toBe(true);
    const held = [...side.values()].filter((s) => s.has('held')).length;
    expect(held).toBeGreaterThan(70);
    expect(held).toBeLessThan(130);
  });

  it("carries a persona's style in the system prompt, apart from the same state without one", () => {
    const rows = tuningRows([lesson('A', ['combat', 'combat']), { ...lesson('A', ['combat', 'combat']), style: 'Play aggressively.' }], tokenizer, { heldOut: 0 });
    expect(rows).toHaveLength(2);
    expect(String.fromCharCode(...rows[1]!.tokens)).toContain('Play style: Play aggressively.');
    expect(String.fromCharCode(...rows[0]!.tokens)).not.toContain('Play style');
  });

  it('refuses a lesson whose taught flags do not match its skills', () => {
    expect(() => tuningRows([{ ...lesson('A', ['secure', 'combat']), taught: [true] }], tokenizer)).toThrow('test: 2 skills but 1 taught flags');
  });
  it('writes terse rows in codes under the terse system prompt, from lessons written in words', () => {
    const words = [
      'Agent 1: health LOW; zone MID, in zone no; enemy visible yes, MID; pickup present yes, MID; skill Combat.',
      'Agent 2: health HIGH; zone NEAR, in zone yes; enemy visible no; pickup present no; skill Secure.',
      'Team: agents apart MID; time URGENT; zone held by us; progress us 47%, enemy 52%.',
    ].join('\n');
    const [row] = tuningRows([lesson(words, ['retreat', 'secure'])], tokenizer, { heldOut: 0, format: 'terse' });
    const [system, user] = String.fromCharCode(...row!.tokens).split('|');
    expect(system).toBe(systemPrompt('terse', 2));
    expect(user).toBe(['LOW MID MID MID combat', 'HIGH IN none none secure', 'MID urgent ours 4 5'].join('\n'));
    expect(() => tuningRows([lesson('not a prompt', ['secure', 'secure'])], tokenizer, { format: 'terse' })).toThrow(/not a strategist prompt line/);
  });
});
