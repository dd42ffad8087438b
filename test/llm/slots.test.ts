/**
 * Which sequence of the local engine a request goes to (pickSlot): the free one holding the
 * longest start of its prompt, so a team's next decision evaluates only what changed since
 * its last one; and the token each compact number is sampled as. Pure: no model is loaded.
 */
import { describe, expect, it } from 'vitest';
import { numberTokens } from '../../src/llm/node/llamaClient';
import { pickSlot, promptKey, sharedPrefixLength } from '../../src/llm/node/localEngine';

interface Slot {
  readonly name: string;
  held: string | null;
  busy: boolean;
  lastUsed: number;
}

const slot = (name: string, held: string | null, lastUsed = 0, busy = false): Slot => ({ name, held, busy, lastUsed });
const key = (system: string, user: string) => promptKey([{ content: system }, { content: user }]);

describe('pickSlot', () => {
  it('takes the free slot that holds the longest start of the prompt', () => {
    const slots = [
      slot('other format', key('json rules', 'Agent 1: health HIGH'), 5),
      slot('same team last time', key('rules', 'Agent 1: health HIGH; zone NEAR'), 1),
      slot('other team', key('rules', 'Agent 1: health LOW'), 9),
    ];
    expect(pickSlot(slots, key('rules', 'Agent 1: health HIGH; zone MID'))?.name).toBe('same team last time');
  });

  it('skips busy slots, however much they hold', () => {
    const prompt = key('rules', 'Agent 1: health HIGH');
    const slots = [slot('busy', prompt, 1, true), slot('free', key('rules', 'Agent 2'), 2)];
    expect(pickSlot(slots, prompt)?.name).toBe('free');
  });

  it('among equals prefers an empty slot, then the least recently used', () => {
    expect(pickSlot([slot('used', key('x', 'a'), 3), slot('empty', null)], key('y', 'b'))?.name).toBe('empty');
    expect(pickSlot([slot('recent', key('rules', 'a'), 7), slot('old', key('rules', 'b'), 2)], key('rules', 'c'))?.name).toBe('old');
  });

  it('finds none when every slot is busy', () => {
    expect(pickSlot([slot('a', null, 0, true)], 'p')).toBeUndefined();
  });
});

describe('sharedPrefixLength', () => {
  it('counts the leading characters two strings share', () => {
    expect(sharedPrefixLength('health HIGH', 'health LOW')).toBe(7);
    expect(sharedPrefixLength('abc', 'abc')).toBe(3);
    expect(sharedPrefixLength('', 'abc')).toBe(0);
  });

  it('keeps message boundaries apart: a system prompt that is a prefix of another is not the same start', () => {
    expect(sharedPrefixLength(key('rules', 'A'), key('rules A', ''))).toBe('rules'.length);
  });
});

describe('numberTokens', () => {
  // A tokenizer that writes each digit as one token numbered 100 + the digit.
  const digits = (text: string) => [...text].map((c) => (100 + Number(c)) as never);

  it('gives the token of each number from 1 to max, in order', () => {
    expect(numberTokens(digits, 4)).toEqual([101, 102, 103, 104]);
    expect(numberTokens(digits, 1)).toEqual([101]);
  });

  it('refuses a model that writes a number as several tokens, naming the number', () => {
    const split = (text: string) => (text === '3' ? [7, 8] : digits(text)) as never[];
    expect(() => numberTokens(split, 4)).toThrow(/writes 3 as 2 tokens/);
  });

  it('refuses what a single digit cannot say', () => {
    expect(() => numberTokens(digits, 0)).toThrow(/numbers 1-9/);
    expect(() => numberTokens(digits, 10)).toThrow(/numbers 1-9/);
  });
});
