import { describe, expect, it } from 'vitest';
import { runMatch, verifyReplay } from '../../src/match';
import { type Action, type World, hashWorld } from '../../src/sim';
import type { HumanInputSource } from '../../src/teams/human';
import { ReplayPlayer } from '../../src/web/replayPlayer';
import { GameSession } from '../../src/web/session';
import { type AppState, createStores } from '../../src/web/stores';
import { TEST_PLATFORM, VirtualClock, testPlatform } from '../helpers/platform';

class Keys implements HumanInputSource {
  dx = 0;
  read(_w: World, _id: number, _slot: number, out: Action): void {
    out.move = this.dx; // the agent faces +x at spawn
  }
}

async function session(app: Partial<AppState> = {}, input: HumanInputSource = new Keys()) {
  const clock = new VirtualClock();
  const stores = createStores({ blue: 'bt-scripted', red: 'heuristic', seed: 7, ...app });
  const s = new GameSession(stores, testPlatform({ clock, person: true }), input);
  await s.start();
  const frames = (n: number, ms = 1000 / 60) => {
    for (let i = 0; i < n; i++) {
      clock.advance(ms);
      s.frame(ms);
    }
  };
  return { s, stores, frames };
}

describe('the page session', () => {
  it('plays 50 ticks per second of wall time at 1x, faster at higher speeds', async () => {
    const { s, stores, frames } = await session();
    expect(stores.app.getState().mode).toBe('live');
    frames(60);
    expect(s.world.tick).toBe(50);
    stores.app.setState({ speed: 4 });
    frames(60);
    expect(s.world.tick).toBe(250);
    stores.app.setState({ speed: 0.5 });
    frames(120);
    expect(s.world.tick).toBe(300);
    const stats = s.stats.summary();
    expect(stats.frames).toBe(240);
    expect(stats.ticks).toBe(300);
  });

  it('pauses, steps one tick, and publishes to the panels', async () => {
    const { s, stores, frames } = await session();
    frames(240);
    s.setPaused(true);
    const tick = s.world.tick;
    frames(30);
    expect(s.world.tick).toBe(tick);
    s.stepOnce();
    expect(s.world.tick).toBe(tick + 1);
    expect(stores.hud.getState().tick).toBe(tick + 1);
    expect(stores.hud.getState().agents).toHaveLength(4);
    expect(stores.hud.getState().agents[0]!.controller).toBe('bt-scripted');
    expect(stores.strategist.getState().teams[0].decisions.length).toBeGreaterThan(0);
    expect(stores.feed.getState().entries[0]!.text).toMatch(/Match started/);
  });

  it('plays the same match as Node, to the same hash', async () => {
    const { s, stores, frames } = await session({ speed: 8 });
    while (!s.done) frames(10);
    const node = await runMatch({ blue: 'bt-scripted', red: 'heuristic', seed: 7 }, { platform: TEST_PLATFORM });
    expect(hashWorld(s.world)).toBe(node.summary().hash);
    expect(stores.hud.getState().outcome).toBe(node.summary().winner);
    expect(stores.feed.getState().entries.some((e) => e.tone === 'win')).toBe(true);
    const text = s.replayText()!;
    expect(verifyReplay(JSON.parse(text)).ok).toBe(true);
  });

  it('lets a person move their agent, and shows errors for teams that cannot start', async () => {
    const keys = new Keys();
    const { s, stores, frames } = await session({ blue: 'human', teammate: 'bt-scripted' }, keys);
    expect(s.snapshotState().humanAgents).toEqual([0]);
    expect(stores.hud.getState().agents[0]!.controller).toBe('You');
    const x0 = s.world.agents[0]!.x;
    keys.dx = 1;
    frames(30);
    expect(s.world.agents[0]!.x).toBeGreaterThan(x0 + 2);
    expect(s.view().labels[0]).toBe('YOU');

    stores.app.setState({ red: 'human' });
    await s.start();
    expect(stores.app.getState().error).toMatch(/blue side/);
    expect(stores.app.getState().mode).toBe('idle');
  });

  it('shows a replay that will not load', async () => {
    const { s, stores } = await session();
    expect(s.loadReplay('{"format":"something else"}', 'bad.json')).toBe(false);
    expect(stores.app.getState().error).toMatch(/not a Hillmind replay/);
    expect(stores.app.getState().mode).toBe('live');
  });

  it('plays, scrubs and checks a replay', async () => {
    const node = await runMatch({ blue: 'bt-scripted', red: 'random', seed: 21 }, { platform: TEST_PLATFORM });
    const replay = node.replay();
    const { s, stores, frames } = await session();
    expect(s.loadReplay(JSON.stringify(replay), 'm.json')).toBe(true);
    expect(stores.app.getState().mode).toBe('replay');
    stores.app.setState({ speed: 8 });
    frames(20);
    const mid = s.world.tick;
    expect(mid).toBeGreaterThan(0);
    s.seek(replay.ticks);
    expect(s.done).toBe(true);
    expect(stores.app.getState().replayCheck).toEqual({ ok: true, expected: replay.finalHash, actual: replay.finalHash });
    s.seek(10);
    expect(s.world.tick).toBe(10);
    expect(stores.app.getState().replayCheck).toBeNull();
    while (!s.done) frames(10);
    expect(hashWorld(s.world)).toBe(replay.finalHash);
    expect(stores.app.getState().replayCheck?.ok).toBe(true);
  });
});

describe('replay player', () => {
  it('ends on the hash verifyReplay computes, from any seek path', async () => {
    const replay = (await runMatch({ blue: 'random', red: 'heuristic', seed: 5 }, { platform: TEST_PLATFORM })).replay();
    const player = new ReplayPlayer(replay);
    player.seek(replay.ticks / 2);
    player.seek(100);
    player.seek(replay.ticks + 50);
    expect(player.check()).toEqual({ ok: true, expected: replay.finalHash, actual: verifyReplay(replay).actualHash });
    expect(player.skills().slice(0, 2).every((s) => s !== null)).toBe(true);
    expect(player.skills().slice(2)).toEqual([null, null]);
    expect(player.decisionsSoFar(0)[0]!.tick).toBeLessThan(player.world.tick);
  });
});
