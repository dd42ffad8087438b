import { describe, expect, it } from 'vitest';
import { readPageOptions, readSeed, readSpeed, readTeam } from '../../src/web/choices';
import { resultText, zoneText } from '../../src/web/describe';

const options = (query: string) => readPageOptions(new URLSearchParams(query));

describe('reading what a person chose', () => {
  it('takes a seed only as a whole number in range, written in digits', () => {
    expect(readSeed('7')).toEqual({ ok: true, value: 7 });
    expect(readSeed('4294967295')).toEqual({ ok: true, value: 4294967295 });
    for (const bad of ['-5', '2.5', '', ' ', '1e3', '0x10', '4294967296', 'seven']) {
      const reading = readSeed(bad);
      expect(reading.ok, bad).toBe(false);
      if (!reading.ok) expect(reading.problem).toBe(`the seed must be a whole number from 0 to 4294967295; '${bad}' is not`);
    }
  });

  it('takes the speeds the page offers and the teams that exist', () => {
    expect(readSpeed('0.5')).toEqual({ ok: true, value: 0.5 });
    expect(readSpeed('99')).toMatchObject({ ok: false, problem: "the speed must be one of 0.5, 1, 2, 4, 8; '99' is not" });
    expect(readTeam('human', 'blue')).toEqual({ ok: true, value: 'human' });
    expect(readTeam('human', 'red')).toMatchObject({ ok: false, problem: 'red=human: people play on the blue side only' });
    expect(readTeam('nonsense', 'blue')).toMatchObject({ ok: false, problem: expect.stringMatching(/^blue=nonsense is not a team \(teams: heuristic, bt, /) });
    // Variants are teams too, by their canonical names; a bad key is named.
    expect(readTeam('bt-scripted:reaction=0.5:persona=cautious', 'red')).toEqual({ ok: true, value: 'bt-scripted:persona=cautious:reaction=0.5' });
    expect(readTeam('bt:speed=9', 'red')).toMatchObject({ ok: false, problem: expect.stringMatching(/^red=bt:speed=9: team 'bt' has no setting 'speed'/) });
  });

  it('names every address value it cannot use, and presets the rest', () => {
    const bad = options('blue=nonsense&speed=99&seed=-5&red=bt&autostart=1');
    expect(bad.presets).toEqual({ red: 'bt' });
    expect(bad.autostart).toBe(true);
    expect(bad.problems).toEqual([
      expect.stringMatching(/^blue=nonsense is not a team/),
      "seed: the seed must be a whole number from 0 to 4294967295; '-5' is not",
      "speed: the speed must be one of 0.5, 1, 2, 4, 8; '99' is not",
    ]);
    expect(options('seed=2.5').problems).toEqual(["seed: the seed must be a whole number from 0 to 4294967295; '2.5' is not"]);
    expect(options('players=3&intro=no&renderer=webgpu').problems).toEqual(["players: '3' is not 1 or 2", "intro: 'no' is not 0 or 1", "renderer: 'webgpu' is not canvas (leave it out for the default)"]);
    const good = options('blue=human&teammate=bt&red=heuristic&seed=12&speed=2&players=2&intro=0&renderer=canvas');
    expect(good).toEqual({
      presets: { blue: 'human', teammate: 'bt', red: 'heuristic', seed: 12, speed: 2, twoPlayers: true, introOpen: false },
      autostart: false,
      canvas: true,
      llm: { runs: 'server' },
      problems: [],
    });
  });

  it('reads where the llm team runs its model, and on how many threads in the page', () => {
    expect(options('llm=browser&llmthreads=1').llm).toEqual({ runs: 'browser', threads: 1 });
    expect(options('llm=auto').llm).toEqual({ runs: 'auto' });
    expect(options('llm=gpu&llmthreads=0').problems).toEqual(["llm: 'gpu' is not server, browser, auto", "llmthreads: '0' is not a whole number from 1 to 16"]);
  });

  it('says results and the zone in the viewer\'s words', () => {
    expect(resultText('blue', true)).toBe('You won');
    expect(resultText('red', true)).toBe('You lost');
    expect(resultText('draw', true)).toBe('Draw');
    expect(resultText('red', false)).toBe('Red wins');
    expect(resultText('red', false, ['Your team', 'Team 2'])).toBe('Team 2 wins');
    expect(zoneText('red', ['Your team', 'Team 2'])).toBe('Team 2 holds the zone');
    expect(zoneText('blue')).toBe('Blue holds the zone');
    expect(zoneText('contested')).toBe('Zone contested');
  });
});
