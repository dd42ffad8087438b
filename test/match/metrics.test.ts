import { describe, expect, it } from 'vitest';
import { Match, formatSummary } from '../../src/match';
import type { SimEvent } from '../../src/sim';
import type { Decision } from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';

describe('match summary and metrics', () => {
  it('agrees with the events and the world it summarises', async () => {
    const decisions: Decision[] = [];
    const match = await Match.create({ blue: 'bt-scripted', red: 'heuristic', seed: 2 }, { platform: TEST_PLATFORM, onDecision: (d) => decisions.push(d) });
    const events: SimEvent[] = [];
    const aliveTicks = [0, 0, 0, 0];
    while (!match.done) {
      match.advance();
      events.push(...match.events);
      match.world.agents.forEach((a) => a.alive && aliveTicks[a.id]!++);
    }
    const s = match.summary();
    const count = (type: string, key: 'agent' | 'target', id: number) => events.filter((e) => e.type === type && (e as Record<string, unknown>)[key] === id).length;

    expect(s.ticks).toBe(match.world.tick);
    expect(s.durationSeconds).toBeCloseTo(match.world.tick / 50, 12);
    const outcome = match.world.outcome!;
    expect(s.winner).toBe(outcome.kind === 'draw' ? 'draw' : ['blue', 'red'][outcome.team]);
    expect(s.progress).toEqual({ blue: match.world.progress[0] / 50, red: match.world.progress[1] / 50 });
    expect(s.decisions.blue).toBe(decisions.filter((d) => d.team === 0).length);
    expect(s.decisions.red).toBe(0);

    let kills = 0;
    let deaths = 0;
    for (const a of s.agents) {
      expect(a.controller).toBe(a.team === 'blue' ? 'bt-scripted' : 'heuristic');
      expect(a.kills).toBe(count('kill', 'agent', a.agent));
      expect(a.deaths).toBe(count('kill', 'target', a.agent));
      expect(a.shots).toBe(count('shot', 'agent', a.agent));
      expect(a.hits).toBe(count('hit', 'agent', a.agent));
      expect(a.pickups).toBe(count('pickup', 'agent', a.agent));
      expect(a.accuracy).toBe(a.shots > 0 ? a.hits / a.shots : null);
      kills += a.kills;
      deaths += a.deaths;
      const skillTime = Object.values(a.skillSeconds).reduce((x, y) => x + y, 0);
      if (a.team === 'blue') expect(skillTime).toBeCloseTo(aliveTicks[a.agent]! / 50, 9);
      else expect(a.skillSeconds).toEqual({});
    }
    expect(kills).toBe(deaths);
    expect(kills).toBeGreaterThan(0);

    const text = formatSummary(s);
    expect(text).toContain(`bt-scripted (blue) vs heuristic (red), seed 2:`);
    expect(text).toContain(`state hash ${s.hash}`);
  });

  // BUG (src/match/metrics.ts, MatchMetrics.lastSkill starts at null; recordDecision only
  // counts a transition when `previous` is set): a hierarchical team starts every agent on
  // 'navigate' and reports a decision only when a skill changes, so when the first reported
  // decision comes after tick 0 (bt-scripted usually keeps navigate at tick 0), each agent's
  // first switch away from navigate is never counted. Skill time does count that navigate
  // time, so transitions and skill time disagree (and the transition entropy is biased).
  it('counts every change of the skill an agent actually runs as a transition', async () => {
    for (const seed of [1, 2, 4]) {
      const match = await Match.create({ blue: 'bt-scripted', red: 'random', seed }, { platform: TEST_PLATFORM, record: false });
      const changes = [0, 0, 0, 0];
      let previous: (string | null)[] | null = null;
      while (!match.done) {
        match.advance();
        const now = [...match.controllers[0].currentSkills, ...match.controllers[1].currentSkills];
        if (previous) now.forEach((skill, id) => skill !== previous![id] && changes[id]!++);
        previous = now;
      }
      const recorded = match.summary().agents.map((a) => Object.values(a.skillTransitions).reduce((x, y) => x + y, 0));
      expect(recorded, `seed ${seed}`).toEqual(changes);
    }
  });
});
