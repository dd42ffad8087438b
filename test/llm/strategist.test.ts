import { describe, expect, it } from 'vitest';
import { ChatError, MemoryCacheStore, buildRequest, cacheKey, latencyTicks } from '../../src/llm';
import { verifyReplay } from '../../src/match';
import { DEFAULT_CONFIG, type SimEvent, createWorld, teamAgents, teamSituation } from '../../src/sim';
import { SCRIPTED_SKILLS } from '../../src/skills';
import type { Team, World } from '../../src/sim';
import { type Decision, type DecisionSource, HierarchicalController, type Strategist, type StrategistAnswer, type TimedDecision, llmStrategistOf, situationKey } from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';
import { TestClient, careful, createLlmMatch, delayed, hang, playLlm } from './helpers';

/** Plays recorded decisions back at their ticks: with the same seed and skills, the match the model played. */
class RecordedStrategist implements Strategist {
  readonly source: DecisionSource;
  private readonly byTick = new Map<number, Decision>();

  constructor(decisions: readonly Decision[], team: Team) {
    const own = decisions.filter((d) => d.team === team);
    this.source = own[0]?.source ?? 'llm';
    for (const d of own) this.byTick.set(d.tick, d);
  }

  decide(world: World): StrategistAnswer | null {
    const d = this.byTick.get(world.tick);
    return d ? { skills: d.skills, ...(d.rationale ? { rationale: d.rationale } : {}) } : null;
  }
}

/** Let what the event loop holds run (an abort's rejection). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const TICK_HZ = 50;

describe('LlmStrategist timing', () => {
  it('lockstep: the match waits, every answer applies at its request tick, 2 Hz without events', async () => {
    const client = new TestClient((_i, r, _s, clock) => delayed(r, 2, clock));
    const { match, strategist } = await playLlm({ client, timing: { kind: 'lockstep' }, events: [] });
    const ticks = match.world.tick;
    expect(match.done).toBe(true);
    const stats = strategist.stats();
    expect(stats.requests).toBe(Math.floor((ticks - 1) / 25) + 1);
    expect(stats).toMatchObject({ calls: stats.requests, answers: stats.requests, applied: stats.requests, failed: 0, abandoned: 0 });
    expect(stats.triggers.periodic).toBe(stats.requests);
    for (const r of strategist.records) {
      expect(r.applyTick).toBe(r.requestTick);
      expect(r.requestTick % 25).toBe(0);
    }
    // Decisions that changed skills reached the match with their tick and timing.
    const decisions = match.replay().decisions.filter((d) => d.team === 0) as TimedDecision[];
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of decisions) expect(d.timing).toMatchObject({ requestTick: d.tick, trigger: 'periodic' });
  });

  it('ticks:N: an answer applies exactly N ticks after its request, however long it took', async () => {
    let seed = 7;
    const jitter = () => ((seed = (seed * 48271) % 2147483647) % 15) + 1;
    const runs = [];
    for (let run = 0; run < 2; run++) {
      const client = new TestClient((_i, r, _s, clock) => delayed(r, jitter(), clock));
      runs.push(await playLlm({ client, timing: { kind: 'ticks', ticks: 8 } }, { seed: 3 }));
    }
    for (const { strategist } of runs) {
      expect(strategist.records.length).toBeGreaterThan(5);
      const s = strategist.stats();
      expect(s.requests).toBe(s.answers + s.failed + s.abandoned);
      for (const r of strategist.records) expect(r.applyTick - r.requestTick).toBe(8);
    }
    // The same answers at the same ticks: the same match, whatever the latencies were.
    expect(runs[0]!.match.summary().hash).toBe(runs[1]!.match.summary().hash);
  });

  it('realtime: wall-clock latency maps to game ticks at 1x', async () => {
    const client = new TestClient((_i, r, _s, clock) => delayed(r, 70, clock));
    const { strategist } = await playLlm({ client, timing: { kind: 'realtime' }, events: [] }, { config: { ...DEFAULT_CONFIG, episodeSeconds: 4 } });
    expect(strategist.records.length).toBeGreaterThan(3);
    for (const r of strategist.records) {
      expect(r.latencyMs).toBeGreaterThanOrEqual(69);
      const ticks = latencyTicks(r.latencyMs!, TICK_HZ);
      expect(r.applyTick - r.requestTick).toBe(ticks);
      expect(ticks).toBeGreaterThanOrEqual(4);
    }
  });

  it('realtime: a cached answer applies after its recorded latency, so a cached rerun repeats the run', async () => {
    const store = new MemoryCacheStore();
    const config = { ...DEFAULT_CONFIG, episodeSeconds: 6 };
    const first = await playLlm({ client: new TestClient((_i, r, _s, clock) => delayed(r, 45, clock)), timing: { kind: 'realtime' }, cache: { store, mode: 'use' } }, { seed: 4, config });
    const offline = new TestClient(() => Promise.reject(new ChatError('network', 'offline')));
    const again = await playLlm({ client: offline, timing: { kind: 'realtime' }, cache: { store, mode: 'use' } }, { seed: 4, config });
    // Only a request still out when the first match ended was never answered, so never cached.
    const before = first.strategist.stats();
    expect(offline.requests.length).toBe(before.abandoned);
    expect(again.strategist.stats()).toMatchObject({ calls: before.abandoned, cacheHits: before.answers, failed: 0 });
    expect(again.strategist.records.map((r) => [r.requestTick, r.applyTick])).toEqual(first.strategist.records.map((r) => [r.requestTick, r.applyTick]));
    expect(again.match.summary().hash).toBe(first.match.summary().hash);
  });

  it('live: the game never waits; an answer applies at the first tick after it arrives', async () => {
    const client = new TestClient((_i, r, _s, clock) => delayed(r, 15, clock));
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'live' }, events: [] });
    let waited = 0;
    for (let frame = 0; frame < 60 && !match.done; frame++) {
      // A display frame: a few ticks, then the page yields to the network.
      for (let k = 0; k < 3 && !match.done; k++) if (match.advance() instanceof Promise) waited++;
      await client.clock.sleep(10); // a display frame of virtual time
    }
    match.close();
    expect(waited).toBe(0);
    expect(strategist.records.length).toBeGreaterThan(3);
    for (const r of strategist.records) expect(r.applyTick).toBeGreaterThan(r.requestTick);
  });
});

describe('LlmStrategist waiting (the page at a speed the model cannot follow)', () => {
  it('a live strategist set to wait holds the match for each answer, which applies at its request tick, and plays live again when set back', async () => {
    const client = new TestClient((_i, r, _s, clock) => delayed(r, 15, clock));
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'live' }, events: [] });
    /** Play `ticks` ticks as the page's frame loop does (a held tick is awaited); how many ticks held. */
    const play = async (ticks: number) => {
      let held = 0;
      for (let k = 0; k < ticks && !match.done; k++) {
        const pending = match.advance();
        if (pending) {
          held++;
          await pending;
        } else if (k % 3 === 2) await client.clock.sleep(10); // a display frame of virtual time
      }
      return held;
    };
    expect(strategist.timing).toEqual({ kind: 'live' });
    strategist.setWaiting(true);
    expect(strategist.timing).toEqual({ kind: 'lockstep' });
    expect(await play(250)).toBe(10); // one request every 25 ticks, each waited for
    const waited = strategist.records.slice();
    expect(waited.length).toBe(10);
    for (const r of waited) expect(r.applyTick).toBe(r.requestTick);

    strategist.setWaiting(false);
    expect(strategist.timing).toEqual({ kind: 'live' });
    expect(await play(250)).toBe(0);
    const live = strategist.records.slice(waited.length);
    expect(live.length).toBeGreaterThan(2);
    for (const r of live) expect(r.applyTick).toBeGreaterThan(r.requestTick);
    match.close();
  });
});

describe('LlmStrategist events', () => {
  it('asks on eliminations, respawns, the zone becoming contested and an own agent dropping LOW', async () => {
    const client = new TestClient();
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'lockstep' }, rateHz: 0, eventGapTicks: 0 }, { seed: 2, red: 'heuristic' });
    const kills = new Set<number>();
    const respawns = new Set<number>();
    const contested = new Set<number>();
    let lowDrops = 0;
    const blue = new Set(teamAgents(match.world, 0).map((a) => a.id));
    const last = () => match.world.tick;
    while (!match.done) {
      const pending = match.advance();
      if (pending) await pending;
      if (match.done) break;
      for (const e of match.events as SimEvent[]) {
        if (e.type === 'kill') kills.add(e.tick);
        if (e.type === 'respawn') respawns.add(e.tick);
        if (e.type === 'zoneStatus' && e.status === 'contested') contested.add(e.tick);
        if (e.type === 'hit' && blue.has(e.target) && e.health > 0 && e.health / 100 <= 0.33 && (e.health + e.damage) / 100 > 0.33) lowDrops++;
      }
    }
    match.close();
    expect(last()).toBeGreaterThan(0);
    const s = strategist.stats();
    expect(s.triggers.periodic).toBe(0);
    expect(kills.size).toBeGreaterThan(0);
    expect(s.triggers.elimination).toBe(kills.size);
    expect(s.triggers.respawn).toBe(respawns.size);
    expect(s.triggers.contested).toBe(contested.size);
    expect(s.triggers['low-health']).toBe(lowDrops);
    expect(s.requests).toBe(client.requests.length);
    const triggers = strategist.records.map((r) => r.trigger);
    expect(triggers.some((t) => t.includes('elimination'))).toBe(true);
  });

  it('asks whenever a fact of an own agent\'s line changes (the situation trigger), and only then', async () => {
    const client = new TestClient();
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'lockstep' }, rateHz: 0, events: ['situation'], eventGapTicks: 0 }, { seed: 2, red: 'heuristic' });
    // The world each tick's decision reads is the one before the tick is played.
    let changes = 0;
    let previous: string | null = null;
    while (!match.done) {
      const facts = situationKey(match.world, 0);
      if (previous !== null && facts !== previous) changes++;
      previous = facts;
      const pending = match.advance();
      if (pending) await pending;
    }
    match.close();
    const s = strategist.stats();
    expect(changes).toBeGreaterThan(5);
    expect(s.triggers.situation).toBe(changes);
    expect(s.triggers.periodic + s.triggers.elimination + s.triggers['low-health']).toBe(0);
    // Lockstep with no gap: every change was asked about at its own tick.
    expect(s.requests).toBe(changes);
  });

  it('counts its applied answers against the tree\'s rules in play: a careful model agrees far more than a constant one', async () => {
    const constant = new TestClient(() => Promise.resolve({ text: '1,1' }));
    const [rulesLike, fixed] = await Promise.all([playLlm({ client: new TestClient(), timing: { kind: 'lockstep' } }, { seed: 2, red: 'bt' }), playLlm({ client: constant, timing: { kind: 'lockstep' } }, { seed: 2, red: 'bt' })]);
    for (const { strategist } of [rulesLike, fixed]) {
      const s = strategist.stats();
      // Every applied answer counts each living agent: two, or one while the other is out.
      expect(s.rules.choices).toBeGreaterThanOrEqual(s.applied);
      expect(s.rules.choices).toBeLessThanOrEqual(2 * s.applied);
      expect(s.rules.heldOut.choices).toBeLessThan(s.rules.choices);
    }
    const share = (p: typeof fixed) => p.strategist.stats().rules.agreed / p.strategist.stats().rules.choices;
    expect(share(rulesLike)).toBeGreaterThan(0.8);
    expect(share(fixed)).toBeLessThan(0.5);
  });

  it('events can be switched off one by one; the fixed rate is configurable', async () => {
    const { strategist } = await playLlm({ client: new TestClient(), timing: { kind: 'lockstep' }, rateHz: 1, events: ['elimination'] }, { seed: 2, red: 'heuristic' });
    const s = strategist.stats();
    expect(s.triggers.respawn + s.triggers.contested + s.triggers['low-health']).toBe(0);
    expect(s.triggers.elimination).toBeGreaterThan(0);
    for (const r of strategist.records.filter((r) => r.trigger === 'periodic')) expect(r.requestTick % 50).toBe(0);
  });

  it('at most one call is out: what falls due meanwhile is folded into the next request', async () => {
    const client = new TestClient((_i, r, _s, clock) => delayed(r, 5, clock));
    const { strategist } = await playLlm({ client, timing: { kind: 'ticks', ticks: 40 } }, { seed: 3 });
    const s = strategist.stats();
    expect(s.coalesced).toBeGreaterThan(0);
    const records = strategist.records;
    for (let i = 1; i < records.length; i++) expect(records[i]!.requestTick).toBeGreaterThanOrEqual(records[i - 1]!.applyTick);
  });
});

describe('LlmStrategist failures', () => {
  it('a failing call keeps the skills, is counted, and repeated failures back off', async () => {
    const client = new TestClient(() => Promise.reject(new ChatError('server', 'HTTP 500', 500)));
    const { match, strategist } = await playLlm({ client, timing: { kind: 'lockstep' }, events: [] });
    expect(match.done).toBe(true);
    const s = strategist.stats();
    expect(s.failures.server).toBe(s.calls);
    expect(s).toMatchObject({ answers: 0, applied: 0, failed: s.calls });
    expect(s.backedOff).toBeGreaterThan(0);
    // Doubling gaps between calls, capped at 5 s.
    const gaps = strategist.records.slice(1).map((r, i) => r.requestTick - strategist.records[i]!.requestTick);
    expect(gaps.slice(0, 4)).toEqual([25, 25, 50, 100]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(250 + 25);
    expect(match.replay().decisions.filter((d) => d.team === 0)).toEqual([]);
    expect((match.controllers[0] as HierarchicalController).currentSkills).toEqual(['navigate', 'navigate']);
  });

  it("a 429 waits its Retry-After before the next call", async () => {
    const client = new TestClient((i, r) => (i === 1 ? Promise.reject(new ChatError('rate-limit', '429', 429, 3000)) : careful(r)));
    const { strategist } = await playLlm({ client, timing: { kind: 'lockstep' }, events: [] }, { seed: 5 });
    const [, limited, next] = strategist.records;
    expect(limited).toMatchObject({ ok: false, failure: 'rate-limit' });
    expect(next!.requestTick - limited!.applyTick).toBeGreaterThanOrEqual(150);
    expect(strategist.stats().failures['rate-limit']).toBe(1);
  });

  it('a hang ends at the timeout; the match goes on', async () => {
    const client = new TestClient((i, r, signal) => (i === 0 ? hang(signal) : careful(r)));
    const { match, strategist } = await playLlm({ client, timing: { kind: 'lockstep' }, timeoutMs: 60 });
    expect(match.done).toBe(true);
    expect(strategist.records[0]).toMatchObject({ ok: false, failure: 'timeout', latencyMs: null });
    expect(strategist.stats()).toMatchObject({ failed: 1, failures: { timeout: 1 } });
    expect(strategist.stats().answers).toBe(strategist.stats().calls - 1);
  });

  it('a client that throws instead of rejecting fails the call, not the match', async () => {
    const client = new TestClient(() => {
      throw new TypeError('boom');
    });
    const { match, strategist } = await playLlm({ client, timing: { kind: 'lockstep' }, events: [] }, { config: { ...DEFAULT_CONFIG, episodeSeconds: 5 } });
    expect(match.done).toBe(true);
    expect(strategist.stats().failures.server).toBe(strategist.stats().calls);
    expect(strategist.records[0]!.reason).toMatch(/boom/);
  });

  it('a call still out at the end is abandoned, not failed', async () => {
    const client = new TestClient((_i, _r, signal) => hang(signal));
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'realtime' }, timeoutMs: 10_000 });
    match.advance();
    match.advance();
    expect(strategist.stats()).toMatchObject({ calls: 1, abandoned: 1, failed: 0 });
    match.close();
    await settle();
    expect(strategist.stats()).toMatchObject({ abandoned: 1, failed: 0 });
  });
});

describe('decision cache', () => {
  it("'use' answers repeated prompts from the store; 'refresh' asks again; 'off' neither reads nor writes", async () => {
    const store = new MemoryCacheStore();
    const timing = { kind: 'ticks', ticks: 5 } as const;
    const first = await playLlm({ client: new TestClient(), timing, cache: { store, mode: 'use' } }, { seed: 9 });
    const s1 = first.strategist.stats();
    expect(store.size).toBeGreaterThan(0);
    expect(s1.calls + s1.cacheHits).toBe(s1.requests);

    const offline = new TestClient(() => Promise.reject(new ChatError('network', 'offline')));
    const again = await playLlm({ client: offline, timing, cache: { store, mode: 'use' } }, { seed: 9 });
    expect(offline.requests).toHaveLength(0);
    expect(again.strategist.stats()).toMatchObject({ calls: 0, cacheHits: s1.requests, failed: 0 });
    expect(again.match.summary().hash).toBe(first.match.summary().hash);

    const refresh = new TestClient();
    const refreshed = await playLlm({ client: refresh, timing, cache: { store, mode: 'refresh' } }, { seed: 9 });
    expect(refreshed.strategist.stats().cacheHits).toBe(0);
    expect(refresh.requests.length).toBe(s1.requests);

    const before = store.size;
    const bypass = new TestClient();
    const off = await playLlm({ client: bypass, timing, cache: { store, mode: 'off' } }, { seed: 10 });
    expect(off.strategist.stats().cacheHits).toBe(0);
    expect(store.size).toBe(before);
  });

  it('the address is model, prompt and temperature', async () => {
    const request = buildRequest(teamSituation(createWorld(1), 0), ['navigate', 'navigate'], { format: 'compact', temperature: 0.1 });
    const key = cacheKey('m', request);
    expect(cacheKey('m', { ...request })).toEqual(key);
    expect(cacheKey('other', request).material).not.toBe(key.material);
    expect(cacheKey('m', { ...request, temperature: 0.7 }).material).not.toBe(key.material);
    const changed = [request.messages[0]!, { role: 'user' as const, content: `${request.messages[1]!.content} ` }];
    expect(cacheKey('m', { ...request, messages: changed }).material).not.toBe(key.material);
    // A warmer run does not reuse the cooler run's answers.
    const store = new MemoryCacheStore();
    const cool = await playLlm({ client: new TestClient(), timing: { kind: 'lockstep' }, cache: { store, mode: 'use' } }, { seed: 9 });
    const warm = await playLlm({ client: new TestClient(), timing: { kind: 'lockstep' }, temperature: 0.7, cache: { store, mode: 'use' } }, { seed: 9 });
    const alone = await playLlm({ client: new TestClient(), timing: { kind: 'lockstep' }, temperature: 0.7, cache: { store: new MemoryCacheStore(), mode: 'use' } }, { seed: 9 });
    expect(warm.strategist.stats().cacheHits).toBe(alone.strategist.stats().cacheHits);
    expect(warm.strategist.stats().cacheHits).toBeLessThan(cool.strategist.stats().requests);
  });
});

describe('replays', () => {
  it('record the tick each decision applied at, and reproduce without the model', async () => {
    const client = new TestClient((_i, r, _s, clock) => delayed(r, 20, clock));
    const { match } = await playLlm({ client, timing: { kind: 'realtime' } }, { seed: 6, config: { ...DEFAULT_CONFIG, episodeSeconds: 8 } });
    const replay = JSON.parse(JSON.stringify(match.replay())) as ReturnType<typeof match.replay>;
    expect(verifyReplay(replay).ok).toBe(true);
    const llmDecisions = replay.decisions.filter((d) => d.team === 0) as TimedDecision[];
    expect(llmDecisions.length).toBeGreaterThan(0);
    for (const d of llmDecisions) {
      expect(d.source).toBe('llm');
      expect(d.timing!.requestTick).toBeLessThan(d.tick);
    }
    // Play the recorded decisions back at their ticks: the same match, no model.
    const { Match } = await import('../../src/match');
    const again = await Match.create(
      { blue: 'llm', red: 'bt-scripted', seed: 6, config: replay.config },
      {
        platform: TEST_PLATFORM,
        controllers: { blue: (ctx) => new HierarchicalController('llm', ctx.team, new RecordedStrategist(replay.decisions as Decision[], ctx.team), SCRIPTED_SKILLS, ctx.onDecision) },
      },
    );
    while (!again.done) await again.advance();
    expect(again.summary().hash).toBe(replay.finalHash);
    expect(llmStrategistOf(again.controllers[0])).toBeNull();
  });
});
