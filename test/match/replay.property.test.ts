/**
 * Property-based tests of the replay reader and verifier: random JSON, random text and
 * valid replays with one field mutated are either read and verified (a result, whatever
 * it says) or refused with a clear error naming the file, never a crash from inside or a
 * hang (every file is bounded before it runs).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ReplayFile, parseReplay, runMatch, verifyReplay } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { TEST_PLATFORM } from '../helpers/platform';
import { expectClearError, mutate, mutation, thrown } from '../helpers/fuzz';

const RUNS = { numRuns: 150, seed: 13 };
let replay: ReplayFile;

beforeAll(async () => {
  // Two seconds of play keep each verification to a few milliseconds.
  replay = (await runMatch({ blue: 'bt-scripted', red: 'random', seed: 3, config: { ...DEFAULT_CONFIG, episodeSeconds: 2 } }, { platform: TEST_PLATFORM })).replay();
});

/** Read and, when it reads, verify: a result or a clear error. */
function readAndVerify(text: string): void {
  let parsed: ReplayFile;
  try {
    parsed = parseReplay(text, 'fuzz.json');
  } catch (err) {
    expectClearError(err, 'fuzz.json ');
    return;
  }
  let result: ReturnType<typeof verifyReplay>;
  try {
    result = verifyReplay(parsed);
  } catch (err) {
    // A config the rules cannot set up (no spot for the zone) is refused in words.
    expectClearError(err);
    return;
  }
  expect(typeof result.ok).toBe('boolean');
  expect(result.ok).toBe(result.problems.length === 0);
  expect(result.ticks).toBeLessThanOrEqual(parsed.ticks);
}

describe('parseReplay and verifyReplay, on inputs nobody meant', () => {
  it('the honest replay verifies', () => {
    expect(verifyReplay(parseReplay(JSON.stringify(replay))).ok).toBe(true);
  });

  it('random JSON values are refused clearly', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => readAndVerify(JSON.stringify(value))), RUNS);
  });

  it('random text is refused clearly', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (text) => readAndVerify(text)), RUNS);
  });

  it('a replay header over random fields is refused clearly', () => {
    const body = fc.dictionary(fc.constantFrom('seed', 'config', 'teams', 'ticks', 'finalHash', 'outcome', 'actions', 'decisions', 'extra'), fc.jsonValue({ maxDepth: 3 }));
    fc.assert(fc.property(body, (fields) => readAndVerify(JSON.stringify({ format: 'hillmind-replay', version: 1, ...fields }))), RUNS);
  });

  it('a valid replay with one field mutated reads and verifies, or is refused clearly; a changed claim never verifies', () => {
    fc.assert(
      fc.property(mutation, (m) => {
        const mutated = mutate(replay, m);
        readAndVerify(JSON.stringify(mutated));
        // Whatever still reads and verifies says what the honest one says.
        const parsed = thrown(() => parseReplay(JSON.stringify(mutated))) ? null : parseReplay(JSON.stringify(mutated));
        if (parsed && verifyReplay(parsed).ok) {
          expect({ ticks: parsed.ticks, outcome: parsed.outcome, finalHash: parsed.finalHash, teams: parsed.teams }).toEqual({ ticks: replay.ticks, outcome: replay.outcome, finalHash: replay.finalHash, teams: replay.teams });
        }
      }),
      RUNS,
    );
  });

  it('two mutations at once are handled the same way', () => {
    fc.assert(fc.property(mutation, mutation, (a, b) => readAndVerify(JSON.stringify(mutate(mutate(replay, a), b)))), { ...RUNS, numRuns: 80 });
  });
});
