import { describe, expect, it } from 'vitest';
import { type ChatClient, ChatError, fixedLlmAccess, strategistSettingsOf } from '../../src/llm';
import { runMatch, verifyReplay } from '../../src/match';
import { type Action, DEFAULT_CONFIG, type World, episodeTicks, hashWorld } from '../../src/sim';
import type { HumanInputSource } from '../../src/teams/human';
import { ReplayPlayer } from '../../src/web/replayPlayer';
import type { Cue } from '../../src/web/cues';
import { COUNTDOWN_MS, MatchSession, MAX_DELTA_MS, type MatchSessionOptions } from '../../src/web/matchSession';
import { type AppState, createStores } from '../../src/web/stores';
import { TEST_PLATFORM, VirtualClock, testPlatform } from '../helpers/platform';

class Keys implements HumanInputSource {
  dx = 0;
  read(_w: World, _id: number, _slot: number, out: Action): void {
    out.move = this.dx; // the agent faces +x at spawn
  }
}

async function session(app: Partial<AppState> = {}, input: HumanInputSource = new Keys(), options: MatchSessionOptions = {}) {
  const clock = new VirtualClock();
  const stores = createStores({ blue: 'bt-scripted', red: 'heuristic', seed: 7, ...app });
  const s = new MatchSession(stores, testPlatform({ clock, person: true }), input, options);
  // The page's frame loop runs from load: the first display frame comes before any match.
  s.frame();
  await s.start();
  const frames = (n: number, ms = 1000 / 60) => {
    for (let i = 0; i < n; i++) {
      clock.advance(ms);
      s.frame();
    }
  };
  return { s, stores, frames, clock };
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

  it("the HUD states the figures of the game on screen: the game's own before a match, each match's config's during it", async () => {
    const games = [
      DEFAULT_CONFIG,
      { ...DEFAULT_CONFIG, episodeSeconds: 20, winHoldSeconds: 5 },
      { ...DEFAULT_CONFIG, tickHz: 25, skillEveryTicks: 2, episodeSeconds: 90, winHoldSeconds: 12 },
    ];
    expect(createStores().hud.getState()).toMatchObject({ tickHz: DEFAULT_CONFIG.tickHz, episodeTicks: episodeTicks(DEFAULT_CONFIG), winSeconds: DEFAULT_CONFIG.winHoldSeconds });
    for (const game of games) {
      const { stores } = await session({}, new Keys(), { config: () => game });
      expect(stores.hud.getState()).toMatchObject({ tickHz: game.tickHz, episodeTicks: episodeTicks(game), winSeconds: game.winHoldSeconds });
    }
  });

  it('plays 4x within 5% at 15, 30 and 60 fps and at an uneven frame rate: stepped by the clock, not the renderer', async () => {
    // Two random teams never hold the zone for long: the match runs the whole 60 s.
    const paces: Record<string, (i: number) => number> = {
      '15 fps': () => 1000 / 15,
      '30 fps': () => 1000 / 30,
      '60 fps': () => 1000 / 60,
      'uneven (10-90 ms)': (i) => (i % 2 === 0 ? 10 : 90),
    };
    for (const [name, frameMs] of Object.entries(paces)) {
      const { s, frames } = await session({ blue: 'random', red: 'random', speed: 4 });
      let elapsed = 0;
      for (let i = 0; elapsed < 10_000; i++) {
        frames(1, frameMs(i));
        elapsed += frameMs(i);
      }
      const expected = (4 * elapsed) / 20; // 4x: four ticks of 20 ms per 20 ms of clock
      expect(s.world.tick / expected, name).toBeGreaterThan(0.95);
      expect(s.world.tick / expected, name).toBeLessThan(1.05);
      expect(s.snapshotState().pace.droppedGameMs, name).toBe(0);
    }
  });

  it('catches up on a stall at most 250 ms of clock (a hidden tab does not fast-forward the match)', async () => {
    const { s, frames, clock } = await session({ blue: 'random', red: 'random', speed: 2 });
    frames(10, 20);
    const before = s.world.tick;
    clock.advance(5000);
    s.frame();
    expect(s.world.tick - before).toBe((2 * MAX_DELTA_MS) / 20);
    const pace = s.snapshotState().pace;
    expect(pace.clockMs - pace.frameMs).toBe(5000 - MAX_DELTA_MS);
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
    frames(Math.ceil(COUNTDOWN_MS / (1000 / 60)) + 30);
    expect(s.world.agents[0]!.x).toBeGreaterThan(x0 + 2);
    expect(s.view().labels[0]).toBe('YOU');

    stores.app.setState({ red: 'human' });
    await s.start();
    expect(stores.app.getState().error).toMatch(/blue side/);
    expect(stores.app.getState().mode).toBe('idle');
  });

  it('counts 3-2-1 on display-frame time before a match with a person, then plays', async () => {
    const cues: Cue[] = [];
    const keys = new Keys();
    keys.dx = 1;
    const { s, stores, frames } = await session({ blue: 'human', teammate: 'bt-scripted' }, keys, { onCue: (c) => cues.push(c) });
    const shown: number[] = [stores.hud.getState().countdown];
    stores.hud.subscribe((h) => {
      if (h.countdown !== shown[shown.length - 1]) shown.push(h.countdown);
    });
    expect(s.snapshotState().countdownMs).toBe(COUNTDOWN_MS);
    frames(60, 25); // 1.5 s
    expect(s.world.tick).toBe(0);
    expect(s.snapshotState().pace.frameMs).toBe(0); // the countdown is not play
    s.setPaused(true);
    frames(200, 25); // paused: the countdown waits too
    expect(s.snapshotState().countdownMs).toBe(COUNTDOWN_MS - 1500);
    s.setPaused(false);
    frames(60, 25);
    expect(s.snapshotState().countdownMs).toBe(0);
    expect(s.world.tick).toBe(0);
    frames(10, 20);
    expect(s.world.tick).toBe(10);
    expect(shown).toEqual([3, 2, 1, 0]);
    expect(cues.filter((c) => c.kind === 'count' || c.kind === 'go').map((c) => c.kind)).toEqual(['count', 'count', 'count', 'go']);
  });

  it('starts a match between AIs at once, and can be told to skip the countdown', async () => {
    const ai = await session();
    expect(ai.s.snapshotState().countdownMs).toBe(0);
    ai.frames(1, 20);
    expect(ai.s.world.tick).toBe(1);
    const human = await session({ blue: 'human' }, new Keys(), { countdownMs: 0 });
    human.frames(1, 20);
    expect(human.s.world.tick).toBe(1);
  });

  it('puts every panel back to the preview when a start fails', async () => {
    const { s, stores, frames } = await session();
    frames(300);
    expect(stores.feed.getState().entries.length).toBeGreaterThan(0);
    expect(stores.hud.getState().agents[0]!.controller).toBe('bt-scripted');
    stores.app.setState({ red: 'human', seed: 11 });
    await s.start();
    expect(stores.app.getState()).toMatchObject({ mode: 'idle' });
    expect(stores.app.getState().error).toMatch(/blue side/);
    const hud = stores.hud.getState();
    expect(hud.tick).toBe(0);
    expect(hud.teams).toEqual(['', '']);
    expect(hud.outcome).toBeNull();
    expect(hud.agents.every((a) => a.controller === '' && a.kills === 0)).toBe(true);
    expect(stores.feed.getState().entries).toEqual([]);
    expect(stores.strategist.getState().teams.map((t) => t.decisions.length)).toEqual([0, 0]);
    expect(s.world.seed).toBe(11);
  });

  it('gives cues for the moments worth a sound, and none for AI shots', async () => {
    const cues: Cue[] = [];
    const { s, frames } = await session({ speed: 8 }, new Keys(), { onCue: (c) => cues.push(c) });
    while (!s.done) frames(10);
    const kinds = new Set(cues.map((c) => c.kind));
    expect(kinds.has('win') || kinds.has('draw')).toBe(true);
    expect(kinds.has('shot') || kinds.has('hit') || kinds.has('hurt') || kinds.has('down')).toBe(false);
    expect(s.snapshotState().cues.win ?? s.snapshotState().cues.draw).toBe(1);
  });

  it('closes a match another start replaces, and one that ends: the model request it has out is aborted', async () => {
    let open = 0;
    const hanging: ChatClient = {
      model: 'hanging',
      complete: (_request, signal) => {
        open++;
        return new Promise((_, reject) => signal.addEventListener('abort', () => (open--, reject(new ChatError('aborted', 'aborted')))));
      },
    };
    const clock = new VirtualClock();
    const settings = strategistSettingsOf({ timing: { kind: 'live' }, skills: 'scripted' });
    const platform = testPlatform({ clock, llm: fixedLlmAccess({ client: hanging, provider: 'test', settings, cache: null }) });
    const stores = createStores({ blue: 'llm', red: 'llm', seed: 7 });
    const s = new MatchSession(stores, platform, new Keys(), { config: () => ({ ...DEFAULT_CONFIG, episodeSeconds: 1 }) });
    await s.start();
    const frames = (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(1000 / 60);
        s.frame();
      }
    };
    frames(3);
    expect(open).toBe(2); // each side asked at its first tick; the model never answers
    await s.start(); // another match takes its place: the old one's requests are aborted
    expect(open).toBe(0);
    frames(3);
    expect(open).toBe(2);
    frames(90); // the 1-second match ends
    expect(s.world.outcome).not.toBeNull();
    expect(open).toBe(0);
  });

  it('waits for the model where the person asks: in the match on screen from its next tick, and in the matches after', async () => {
    const hanging: ChatClient = { model: 'hanging', complete: (_request, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new ChatError('aborted', 'aborted')))) };
    const clock = new VirtualClock();
    const settings = strategistSettingsOf({ timing: { kind: 'live' }, skills: 'scripted', timeoutMs: 60_000 });
    const platform = testPlatform({ clock, llm: fixedLlmAccess({ client: hanging, provider: 'test', settings, cache: null }) });
    const stores = createStores({ blue: 'llm', red: 'heuristic', seed: 7 });
    const s = new MatchSession(stores, platform, new Keys());
    const frames = (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(1000 / 60);
        s.frame();
      }
    };
    await s.start();
    frames(30);
    // Live: the model has not answered its first call, and the game went on without it.
    const asked = s.world.tick;
    expect(asked).toBeGreaterThan(20);
    stores.app.setState({ waitForModel: true });
    frames(30);
    // Waiting: the game holds at its next tick for the call still out.
    expect(s.world.tick).toBe(asked);
    expect(s.snapshotState().waitForModel).toBe(true);
    await s.start();
    frames(30);
    // The next match waits from its first request on.
    expect(s.world.tick).toBe(0);
    stores.app.setState({ waitForModel: false });
    await s.start();
    frames(30);
    expect(s.world.tick).toBeGreaterThan(20);
    s.currentMatch?.close();
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
    const { s, stores, frames } = await session({ blue: 'heuristic', red: 'bt-scripted', seed: 3 });
    expect(s.loadReplay(JSON.stringify(replay), 'm.json')).toBe(true);
    expect(stores.app.getState().mode).toBe('replay');
    // The setup's choices are the replay's matchup now, not the match played before.
    expect([stores.app.getState().blue, stores.app.getState().red, stores.app.getState().seed]).toEqual(['bt-scripted', 'random', 21]);
    stores.app.setState({ speed: 8 });
    frames(20);
    const mid = s.world.tick;
    expect(mid).toBeGreaterThan(0);
    s.seek(replay.ticks);
    expect(s.done).toBe(true);
    expect(stores.app.getState().replayCheck).toEqual({ ok: true, expected: replay.finalHash, actual: replay.finalHash });
    // The feed reads as if the replay had played to where it stands.
    const atEnd = stores.feed.getState().entries.map((e) => e.text);
    expect(atEnd.length).toBeGreaterThan(2);
    expect(atEnd[0]).toMatch(/Replay loaded/);
    expect(atEnd[atEnd.length - 1]).toMatch(/wins|draw/);
    s.seek(10);
    expect(s.world.tick).toBe(10);
    expect(stores.app.getState().replayCheck).toBeNull();
    expect(stores.feed.getState().entries.every((e) => e.tick <= 10)).toBe(true);
    expect(stores.feed.getState().entries[0]!.text).toMatch(/Replay loaded/);
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
