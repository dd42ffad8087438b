import { describe, expect, it } from 'vitest';
import { Match, runMatch, verifyReplay } from '../../src/match';
import type { Action, World } from '../../src/sim';
import { HumanTeamController, createHumanTeam, type HumanInputSource } from '../../src/teams/human';
import { TEST_PLATFORM } from '../helpers/platform';

/** A scripted "person": walks right and fires, every tick. */
class ScriptedPerson implements HumanInputSource {
  reads = 0;
  read(_world: World, _agentId: number, slot: number, out: Action): void {
    this.reads++;
    out.move = slot === 0 ? 1 : -1;
    out.turn = 0.25;
    out.strafe = 3; // clamped
    out.fire = 1;
    out.dash = 0.2; // off
  }
}

describe('human team', () => {
  it('overrides only the person\'s agent and keeps the AI teammate playing', async () => {
    const person = new ScriptedPerson();
    const match = await Match.create(
      { blue: 'human', red: 'heuristic', seed: 4 }, { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: 'bt-scripted', input: person }) } },
    );
    const blue = match.controllers[0];
    expect(blue).toBeInstanceOf(HumanTeamController);
    expect(blue.id).toBe('human');
    match.advance();
    const [p, teammate] = match.lastActions;
    expect(p).toEqual({ move: 1, turn: 0.25, strafe: 1, dash: 0, fire: 1 });
    expect(teammate).not.toEqual(p);
    expect(blue.currentSkills[0]).toBeNull();
    expect(blue.currentSkills[1]).toBe('navigate');
    expect((blue as HumanTeamController).humanAgents).toEqual([0]);
    expect(person.reads).toBe(1);
  });

  it('records people\'s actions in the replay, which verifies', async () => {
    const person = new ScriptedPerson();
    const match = await runMatch(
      { blue: 'human', red: 'bt-scripted', seed: 11 }, { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: 'heuristic', humanSlots: [0, 1], input: person }) } },
    );
    const replay = match.replay();
    expect(replay.teams.blue).toBe('human');
    const rows = replay.actions.filter((r) => r[1] === 0 || r[1] === 1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r[1] === 0 && r[2] === 1 && r[3] === 0.25)).toBe(true);
    expect(rows.some((r) => r[1] === 1 && r[2] === -1)).toBe(true);
    expect(verifyReplay(replay).ok).toBe(true);
  });

  it('gives eliminated people no action and refuses a human teammate', async () => {
    const person = new ScriptedPerson();
    const match = await Match.create(
      { blue: 'human', red: 'heuristic', seed: 2 }, { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: 'heuristic', input: person }) } },
    );
    match.world.agents[0]!.alive = false;
    match.world.agents[0]!.respawnTimer = 50;
    match.advance();
    expect(match.lastActions[0]).toEqual({ move: 0, turn: 0, strafe: 0, dash: 0, fire: 0 });
    expect(person.reads).toBe(0);
    await expect(
      Match.create({ blue: 'human', red: 'heuristic', seed: 2 }, { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: 'human', input: person }) } }),
    ).rejects.toThrow(/AI team/);
  });

  it('leaves matches without a controllers override as they were', async () => {
    const a = await runMatch({ blue: 'bt-scripted', red: 'heuristic', seed: 3 }, { platform: TEST_PLATFORM, record: false });
    const b = await runMatch(
      { blue: 'bt-scripted', red: 'heuristic', seed: 3 }, { platform: TEST_PLATFORM, record: false, controllers: {} },
    );
    expect(b.summary().hash).toBe(a.summary().hash);
  });
});
