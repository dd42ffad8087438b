import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, OBS_SIZE, deriveSeed, idleAction } from '../../src/sim';
import { skillContext } from '../../src/skills';
import { outputsToActions } from '../../src/skills/onnxPolicy';
import { loadCheckpoint, saveCheckpoint } from '../../src/train/artifacts';
import type { LeagueSettings, PpoConfig } from '../../src/train/config';
import { League, episodeScore, pfspWeights, sampleIndex } from '../../src/train/league';
import { type PolicyState, type UpdateStats, createPolicyState } from '../../src/train/ppo';
import { type TrainingPlan, trainPpo } from '../../src/train/trainer';
import { TINY, sampleObservations, tempDir, tinyState } from './fixtures';

const tmp = tempDir('league');
afterAll(() => tmp.remove());

const SETTINGS: LeagueSettings = { snapshotEvery: 100, scripted: ['heuristic', 'bt-scripted'], latestShare: 0.25, exponent: 2, decay: 0.5 };

describe('PFSP weights and draws', () => {
  it('weigh a member by how often it beats the learner: (1 - score share)^p, an unmet member at an even score', () => {
    // Learner lost every game to member 0, won every game against member 1, never met member 2.
    const w = pfspWeights([0, 10, 0], [10, 10, 0], 2);
    [(1 - 0.5 / 11) ** 2, (0.5 / 11) ** 2, 0.25].forEach((expected, i) => expect(w[i]).toBeCloseTo(expected, 12));
    expect(w[0]!).toBeGreaterThan(400 * w[1]!);
    // Exponent 1: proportional to the opponent's share.
    expect(pfspWeights([3], [3], 1)[0]).toBeCloseTo(0.5 / 4, 12);
  });

  it('sampleIndex walks the cumulative weights and never picks a member weighing nothing', () => {
    const weights = [1, 0, 3];
    expect([0, 0.24, 0.25, 0.99].map((u) => sampleIndex(weights, u))).toEqual([0, 0, 2, 2]);
    expect(sampleIndex([0, 0], 0.5)).toBe(1);
  });

  it('scores an episode from the learner side: a win, a loss, a draw, and zone progress when cut at the horizon', () => {
    expect(episodeScore('blue', [0, 5])).toBe(1);
    expect(episodeScore('red', [5, 0])).toBe(0);
    expect(episodeScore('draw', [3, 0])).toBe(0.5);
    expect([episodeScore(null, [2, 1]), episodeScore(null, [1, 2]), episodeScore(null, [1, 1])]).toEqual([1, 0, 0.5]);
  });
});

describe('League', () => {
  const state = tinyState(3);

  it('takes a snapshot at the start and at each multiple of snapshotEvery, not in between', () => {
    const league = new League(SETTINGS);
    expect([0, 50, 100, 150, 199, 200, 450].map((steps) => league.maybeSnapshot(steps, state))).toEqual([true, false, true, false, false, true, true]);
    expect(league.size).toBe(2 + 4);
    expect(league.member(5)).toEqual({ kind: 'snapshot', index: 3 });
    expect(league.member(1)).toEqual({ kind: 'scripted', name: 'bt-scripted' });
  });

  it('a snapshot plays the network frozen as it was: the means, and dash/fire on a positive logit', () => {
    const league = new League(SETTINGS);
    const s: PolicyState = tinyState(4);
    league.maybeSnapshot(0, s);
    const obs = sampleObservations(3, 9);
    const normalized = new Float32Array(3 * OBS_SIZE);
    s.normalizer.normalize(obs, 3, normalized);
    const expected = [idleAction(), idleAction(), idleAction()];
    outputsToActions(s.policy.forward(normalized, 3).slice(), 3, expected);
    s.policy.params.fill(0); // training goes on; the snapshot must not follow
    const played = [idleAction(), idleAction(), idleAction()];
    league.snapshotPolicy(0).act(obs, 3, played, skillContext(DEFAULT_CONFIG));
    expect(played).toEqual(expected);
  });

  it('draws the newest snapshot for latestShare of the episodes and the rest by PFSP, the same for the same seeds', () => {
    const league = new League(SETTINGS);
    league.maybeSnapshot(0, state);
    league.maybeSnapshot(100, state);
    // Members: heuristic (learner always wins), bt-scripted (learner always loses), two snapshots (even).
    league.record(0, 1);
    league.record(1, 0);
    for (let i = 0; i < 20; i++) {
      league.record(0, 1);
      league.record(1, 0);
      league.record(2, 0.5);
      league.record(3, 0.5);
    }
    league.fold(league.results.slice());
    const seeds = Array.from({ length: 4000 }, (_, i) => deriveSeed(1, 'episode', i));
    const picks = seeds.map((s) => league.pick(s));
    expect(seeds.map((s) => league.pick(s))).toEqual(picks);
    const share = (m: number) => picks.filter((p) => p === m).length / picks.length;
    const w = pfspWeights([21, 0, 10, 10], [21, 21, 20, 20], 2);
    const total = w.reduce((a, b) => a + b, 0);
    const expected = [0, 1, 2, 3].map((m) => 0.75 * (w[m]! / total) + (m === 3 ? 0.25 : 0));
    for (const m of [0, 1, 2, 3]) expect(Math.abs(share(m) - expected[m]!)).toBeLessThan(0.025);
    // The member that beats the learner is met far more than the one it beats.
    expect(share(1)).toBeGreaterThan(10 * share(0));
  });

  it('folds results with decay, so workers given the same summed results agree, and recent games count most', () => {
    const a = new League(SETTINGS);
    const b = new League(SETTINGS);
    for (const l of [a, b]) l.maybeSnapshot(0, state);
    a.record(0, 1); // worker 0 saw a win against heuristic
    b.record(0, 0); // worker 1 saw a loss
    b.record(2, 1);
    const summed = a.results.map((x, i) => x + b.results[i]!);
    a.fold(summed.slice());
    b.fold(summed.slice());
    expect(a.standings()).toEqual(b.standings());
    expect(a.results.every((x) => x === 0)).toBe(true);
    // One more loss to heuristic: with decay 0.5 the old 1-of-2 weighs half, so the score is (0.5) / (1 + 1).
    a.record(0, 0);
    a.fold(a.results.slice());
    expect(a.standings()[0]!.score).toBeCloseTo(0.5 / 2, 12);
  });

  it('comes back from its state with the same snapshots, scores and draws', () => {
    const league = new League(SETTINGS);
    league.maybeSnapshot(0, state);
    league.maybeSnapshot(100, tinyState(5));
    league.record(1, 0);
    league.fold(league.results.slice());
    const copy = new League(SETTINGS, league.state());
    expect(copy.standings()).toEqual(league.standings());
    const seeds = Array.from({ length: 200 }, (_, i) => i * 7919);
    expect(seeds.map((s) => copy.pick(s))).toEqual(seeds.map((s) => league.pick(s)));
    expect(copy.maybeSnapshot(150, state)).toBe(false);
    expect(copy.maybeSnapshot(200, state)).toBe(true);
  });
});

describe('training against a league', () => {
  const LEAGUE: PpoConfig = { ...TINY, numEnvs: 4, workers: 2, totalSteps: 4 * 128 };
  // Snapshots every update (128 steps), so the last updates meet several past selves.
  const plan = (config: PpoConfig): TrainingPlan => ({
    scenario: 'flat',
    config,
    phases: [
      { opponents: { league: { ...SETTINGS, snapshotEvery: 128 } }, until: 0.75 },
      { opponents: ['heuristic'], until: 1 },
    ],
    teacher: null,
  });
  const bits = (s: PolicyState) => [s.policy.params, s.value.params, s.logStd].map((a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length)));

  it('snapshots the learner as it goes, and a run resumed from a checkpoint ends bit for bit where an uninterrupted one does', async () => {
    const straightState = createPolicyState(LEAGUE);
    let leagueAtEnd: number | undefined;
    await trainPpo(plan(LEAGUE), straightState, { onUpdate: (_s, _st, trainer) => void (leagueAtEnd = trainer().league?.snapshots.length) });
    // Updates at 0, 128 and 256 steps play the league (until 0.75 x 512 = 384): one snapshot each.
    expect(leagueAtEnd).toBe(3);

    const runDir = `${tmp.path}/resume`;
    class Killed extends Error {}
    const stopped = trainPpo(plan(LEAGUE), createPolicyState(LEAGUE), {
      onUpdate(stats, state, trainer) {
        if (stats.steps < 256) return;
        saveCheckpoint(runDir, { name: 'flat', steps: stats.steps, wallSeconds: 1, config: LEAGUE, state, trainer: trainer() });
        throw new Killed();
      },
    });
    await expect(stopped).rejects.toBeInstanceOf(Killed);
    const cp = loadCheckpoint(runDir);
    expect(cp.trainer?.league?.snapshots.map((s) => s.steps)).toEqual([0, 128]);
    const resumed: UpdateStats[] = [];
    await trainPpo(plan(cp.config), cp.state, { onUpdate: (s) => void resumed.push(s) }, cp.steps, cp.trainer);
    expect(resumed.map((s) => s.steps)).toEqual([384, 512]);
    expect(bits(cp.state)).toEqual(bits(straightState));
  });
});
