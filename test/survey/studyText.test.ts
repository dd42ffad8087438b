/**
 * What a study tells people is computed from its settings: the rules of its game, its
 * blocks, its practice round and how long it takes, on three studies that differ in each;
 * and `survey create`'s check finds the study's own words where they disagree.
 */
import { describe, expect, it } from 'vitest';
import { rulesText } from '../../src/match';
import { DEFAULT_CONFIG, type GameConfig } from '../../src/sim';
import { type StudyConfigInput, parseStudyConfig, studyMinutes, textDisagreements } from '../../src/survey';

/** The reference protocol; five 20-second episodes, one a block; an observe study of three clips of 45 s with two people at one computer. */
const STUDIES: Record<string, StudyConfigInput> = {
  reference: {},
  fiveShort: { teams: ['bt-scripted', 'heuristic', 'random', 'flat', 'bt'], episodesPerBlock: 1, episodeSeconds: 20, practice: { enabled: false } },
  twoPeople: { teams: ['bt-scripted', 'heuristic'], episodesPerBlock: 4, episodeSeconds: 45, teammate: 'person', practice: { episodeSeconds: 15 } },
  observe: { kind: 'observe', episodeSeconds: 45, observe: { clips: 3 } },
};

/** The texts the reference study used to show whatever its settings (before they were computed from them). */
const FIXED_INSTRUCTIONS =
  'Two teams of two fight over one circular zone. Your team is blue. Hold the zone alone for 8 seconds in total to win. When a player is eliminated, their team loses half of its progress and the player returns to base 2 seconds later. Green crosses restore health. After 60 seconds without a winner, the episode is a draw.';
const FIXED_CONSENT =
  'You will play short matches of a top-down team game against several computer-controlled teams and answer a few questions about each team. It takes about 30 minutes.';

describe('the words a study shows people', () => {
  it.each(Object.entries(STUDIES))('%s: the instructions state its own episode length, blocks and practice', (name, input) => {
    const c = parseStudyConfig(input);
    const seconds = c.episodeSeconds ?? DEFAULT_CONFIG.episodeSeconds;
    expect(c.instructions).toContain(`After ${seconds} seconds without a winner, the episode is a draw.`);
    if (seconds !== 60) expect(c.instructions).not.toMatch(/\b60 seconds/);
    expect(c.instructions).toContain('Hold the zone alone for 8 seconds in total to win.');
    if (c.kind === 'play') {
      expect(c.instructions).toContain(`You will play ${{ 2: 'two', 3: 'three', 5: 'five' }[c.teams.length]} blocks of ${{ 1: 'one episode', 4: 'four episodes', 6: 'six episodes' }[c.episodesPerBlock]}`);
      expect(c.instructions.includes('practice round')).toBe(c.practice.enabled);
      if (c.practice.enabled) expect(c.instructions).toContain(`a practice round of up to ${c.practice.episodeSeconds} seconds`);
      expect(c.instructions.includes('second person at this computer')).toBe(name === 'twoPeople');
    } else {
      expect(c.instructions).toContain('Watch each of the three recordings');
    }
    // What is computed from the settings agrees with them.
    expect(textDisagreements(c)).toEqual([]);
  });

  it('the consent page says how long the study takes at its settings', () => {
    const minutes = Object.fromEntries(Object.entries(STUDIES).map(([name, input]) => [name, studyMinutes(parseStudyConfig(input))]));
    // The reference protocol keeps the 30 minutes it always said; five short episodes (five blocks to rate) take half that.
    expect(minutes).toEqual({ reference: 30, fiveShort: 15, twoPeople: 15, observe: 8 });
    for (const [name, input] of Object.entries(STUDIES)) {
      expect(parseStudyConfig(input).consent, name).toContain(`It takes about ${minutes[name]} minutes.`);
    }
    // More episodes take longer.
    expect(studyMinutes(parseStudyConfig({ episodesPerBlock: 12 }))).toBeGreaterThan(minutes.reference!);
    // A study's own consent text is kept as written.
    expect(parseStudyConfig({ consent: 'Our own words.' }).consent).toBe('Our own words.');
  });

  it("survey create's check: a study's own text that disagrees with its settings is found, sentence by sentence", () => {
    const c = parseStudyConfig({ ...STUDIES.fiveShort, instructions: FIXED_INSTRUCTIONS, consent: FIXED_CONSENT });
    expect(textDisagreements(c)).toEqual([
      { field: 'consent', sentence: 'It takes about 30 minutes.', message: 'says 30 minutes, but this study takes about 15 minutes at its settings' },
      {
        field: 'instructions',
        sentence: 'After 60 seconds without a winner, the episode is a draw.',
        message: "says 60 seconds, but this study's episodes end in a draw after 20 s (episodeSeconds)",
      },
    ]);
    // The same words fit the reference protocol.
    expect(textDisagreements(parseStudyConfig({ instructions: FIXED_INSTRUCTIONS, consent: FIXED_CONSENT }))).toEqual([]);
    // A practice round, a hold and a return to base stated wrongly are each found.
    const wrong = parseStudyConfig({ instructions: 'A practice round of 45 seconds comes first. Holding the zone for 10 s wins. An eliminated player is back at base 5 seconds later.' });
    expect(textDisagreements(wrong).map((d) => d.message)).toEqual([
      'says 45 seconds, but the practice round lasts at most 30 s (practice.episodeSeconds)',
      'says 10 s, but holding the zone for 8 s wins',
      'says 5 seconds, but an eliminated player returns after 2 s',
    ]);
  });
});

describe('the rules in words', () => {
  const games: Record<string, GameConfig> = {
    standard: DEFAULT_CONFIG,
    threes: { ...DEFAULT_CONFIG, agent: { ...DEFAULT_CONFIG.agent, perTeam: 3 }, winHoldSeconds: 5, respawnDelay: 1, progressKeptOnElimination: 0.25, episodeSeconds: 90 },
    noPickups: { ...DEFAULT_CONFIG, pickups: { ...DEFAULT_CONFIG.pickups, positions: [] }, progressKeptOnElimination: 1 },
  };

  it.each(Object.entries(games))('%s: every figure comes from the config', (_name, config) => {
    const text = rulesText(config, { game: 'episode' });
    expect(text).toContain(`Two teams of ${config.agent.perTeam === 3 ? 'three' : 'two'} fight`);
    expect(text).toContain(`alone for ${config.winHoldSeconds} seconds in total to win`);
    expect(text).toContain(`returns to base ${config.respawnDelay} second${config.respawnDelay === 1 ? '' : 's'} later`);
    expect(text).toContain(`After ${config.episodeSeconds} seconds without a winner, the episode is a draw.`);
    expect(text.includes('Green crosses')).toBe(config.pickups.positions.length > 0);
    const lost = { 0.5: 'half of its progress', 0.25: '75% of its progress', 1: 'none of its progress' }[config.progressKeptOnElimination];
    expect(text).toContain(`their team loses ${lost}`);
  });
});
