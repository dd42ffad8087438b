import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AgentMetrics, HEATMAP_COLS, HEATMAP_ROWS } from '../../src/match';
import type { SkillId } from '../../src/skills';
import { behaviourDistance, behaviourProfile, compareBehaviour } from '../../src/tournament/behaviour';
import type { EpisodeRecord } from '../../src/tournament/records';
import { runTournament } from '../../src/tournament/run';
import { nodeTestPlatform } from '../helpers/platform';

const CELLS = HEATMAP_COLS * HEATMAP_ROWS;
/** A heatmap with all samples in one cell. */
const oneCell = (index: number, n = 10) => Array.from({ length: CELLS }, (_, i) => (i === index ? n : 0));

function record(blue: string, red: string, blueSkills: Partial<Record<SkillId, number>>, heat: { blue: number[]; red: number[] }, contact: number | null): EpisodeRecord {
  const agent = (team: 'blue' | 'red', skillSeconds: Partial<Record<SkillId, number>>, transitions: number): AgentMetrics => ({
    agent: 0,
    team,
    controller: team === 'blue' ? blue : red,
    kills: 0,
    deaths: 0,
    shots: 0,
    hits: 0,
    accuracy: null,
    damageDealt: 0,
    pickups: 0,
    skillSeconds,
    skillTransitions: transitions ? { 'navigate->combat': transitions } : {},
  });
  return {
    key: `${blue}|${red}|0`,
    a: blue,
    b: red,
    index: 0,
    seed: 1,
    blue,
    red,
    matchup: `${blue} vs ${red}`,
    winner: null,
    winnerSide: 'draw',
    durationSeconds: 60,
    progress: { blue: 0, red: 0 },
    decisions: { blue: 0, red: 0 },
    agents: [agent('blue', blueSkills, 6), agent('red', {}, 0)],
    behaviour: { firstContactSeconds: contact, heatmap: heat },
    hash: 'x',
  };
}

describe('behaviour measures', () => {
  it('profile skill use, switch rate, places seen from the own base, and first contact', () => {
    // Blue spends its samples in the left-most top cell, red in the right-most top cell: from their own bases, the same place.
    const r = record('a', 'b', { navigate: 30, combat: 30 }, { blue: oneCell(0), red: oneCell(HEATMAP_COLS - 1) }, 4);
    const a = behaviourProfile([r], 'a');
    const b = behaviourProfile([r], 'b');
    expect(a.skillShare).toEqual([0.5, 0.5, 0, 0]);
    expect(a.switchesPerMinute).toBe(6);
    expect(a.heatmap[0]).toBe(1);
    expect(b.heatmap[0]).toBe(1);
    expect(a.heatmapEntropyBits).toBe(0);
    expect(a.firstContactSeconds).toBe(4);
    expect(b.skillShare).toBeNull(); // no skills (a flat team)
    expect(behaviourDistance(a, b)).toBe(0);
  });

  it('count alike entrants as one behaviour and different ones apart', () => {
    const records = [
      record('x', 'y', { combat: 60 }, { blue: oneCell(3), red: oneCell(HEATMAP_COLS - 1 - 3) }, 2),
      record('z', 'y', { retreat: 60 }, { blue: oneCell(20), red: oneCell(HEATMAP_COLS - 1 - 3) }, 2),
    ];
    const c = compareBehaviour(records, ['x', 'y', 'z']);
    expect(c.skillDivergence[0]![2]).toBeCloseTo(1, 9);
    expect(c.placeDivergence[0]![1]).toBe(0);
    expect(c.clusters).toEqual([['x', 'y'], ['z']]);
  });

  it('a tournament of three tree personas reports three entrants with their behaviour', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hillmind-behaviour-'));
    try {
      const teams = ['bt-scripted', 'bt-scripted:persona=aggressive', 'bt-scripted:persona=cautious'];
      const result = await runTournament({ settings: { teams, episodes: 6, seed: 1 }, platform: nodeTestPlatform(), out, workers: 1, resume: false });
      const b = result.summary.behaviour;
      expect(b.profiles.map((p) => p.team)).toEqual(teams);
      for (const p of b.profiles) {
        expect(p.episodes).toBe(12);
        expect(p.skillShare!.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
        expect(p.heatmap.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
      }
      // Aggressive never retreats; cautious does, and the two differ most.
      expect(b.profiles[1]!.skillShare![3]).toBe(0);
      expect(b.profiles[2]!.skillShare![3]).toBeGreaterThan(0);
      expect(b.skillDivergence[1]![2]!).toBeGreaterThan(b.skillDivergence[0]![1]!);
      const report = readFileSync(join(out, 'report.md'), 'utf8');
      expect(report).toContain('## Behaviour');
      for (const t of teams) expect(report).toContain(`| ${t} |`);
      expect(report).toMatch(/Coverage: \d distinct behaviours? among 3 entrants/);
      expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<h2>Behaviour</h2>');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
