import { describe, expect, it } from 'vitest';
import {
  DECISION_HISTORY,
  FEED_LIMIT,
  createStores,
  foldDecision,
  isSpeed,
  nextSpeed,
  pushDecision,
  pushFeed,
  resetStrategist,
  setDecisions,
} from '../../src/web/stores';

describe('page stores', () => {
  it('start from the defaults and take presets', () => {
    const stores = createStores({ blue: 'human', seed: 9 });
    const app = stores.app.getState();
    expect(app.blue).toBe('human');
    expect(app.seed).toBe(9);
    expect(app.red).toBe('heuristic');
    expect(app.mode).toBe('idle');
    expect(stores.hud.getState().agents).toEqual([]);
  });

  it('keep the latest feed entries with increasing ids', () => {
    const { feed } = createStores();
    for (let i = 0; i < FEED_LIMIT + 10; i++) pushFeed(feed, [{ tick: i, text: `event ${i}`, tone: 'neutral' }]);
    const entries = feed.getState().entries;
    expect(entries).toHaveLength(FEED_LIMIT);
    expect(entries[entries.length - 1]!.text).toBe(`event ${FEED_LIMIT + 9}`);
    expect(entries[0]!.text).toBe('event 10');
    const ids = entries.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const before = feed.getState();
    pushFeed(feed, []);
    expect(feed.getState()).toBe(before);
  });

  it('hold each team\'s latest decisions, newest first', () => {
    const { strategist } = createStores();
    resetStrategist(strategist, ['human + bt-scripted', 'heuristic'], [[0], []]);
    for (let i = 0; i < DECISION_HISTORY + 3; i++) {
      pushDecision(strategist, { tick: i * 100, team: 0, skills: ['navigate', 'secure'], source: 'behavior-tree' }, 25);
    }
    pushDecision(strategist, { tick: 4, team: 1, skills: ['combat', 'combat'], source: 'llm', rationale: 'they are near' }, 25);
    const [blue, red] = strategist.getState().teams;
    expect(blue.decisions).toHaveLength(DECISION_HISTORY);
    expect(blue.decisions[0]!.decision.tick).toBe((DECISION_HISTORY + 2) * 100);
    expect(blue.decisions.every((d) => d.count === 1)).toBe(true);
    expect(blue.humanSlots).toEqual([0]);
    expect(red.decisions[0]!.decision.rationale).toBe('they are near');
    setDecisions(strategist, [], [red.decisions[0]!.decision], 25);
    expect(strategist.getState().teams[0].decisions).toEqual([]);
    expect(strategist.getState().teams[1].decisions[0]!.decision.tick).toBe(4);
    expect(strategist.getState().teams[0].controller).toBe('human + bt-scripted');
  });

  it('fold a run of quick flips into one line that says how many it stands for', () => {
    const flips = [0, 3, 7, 12, 15].map((tick, i) => ({ tick, team: 0 as const, skills: [i % 2 ? 'navigate' : 'secure', 'combat'] as const, source: 'behavior-tree' as const }));
    const later = { tick: 200, team: 0 as const, skills: ['retreat', 'combat'] as const, source: 'behavior-tree' as const };
    let shown = flips.reduce<ReturnType<typeof foldDecision>>((list, d) => foldDecision(list, { ...d, skills: [...d.skills] }, 25), []);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ since: 0, count: 5 });
    expect(shown[0]!.decision.tick).toBe(15);
    shown = foldDecision(shown, { ...later, skills: [...later.skills] }, 25);
    expect(shown.map((s) => [s.since, s.count])).toEqual([[200, 1], [0, 5]]);
    // A run is measured from its first decision, so steady flipping still makes new lines.
    const steady = Array.from({ length: 10 }, (_, i) => ({ tick: i * 10, team: 0 as const, skills: ['navigate' as const], source: 'behavior-tree' as const }));
    const folded = steady.reduce<ReturnType<typeof foldDecision>>((list, d) => foldDecision(list, d, 25), []);
    expect(folded.map((s) => s.count)).toEqual([1, 3, 3, 3]);
    // A seek rebuilds the same lines from the history.
    const { strategist } = createStores();
    setDecisions(strategist, steady, [], 25);
    expect(strategist.getState().teams[0].decisions).toEqual(folded);
  });

  it('step speeds within 0.5x to 8x', () => {
    expect(nextSpeed(1, 1)).toBe(2);
    expect(nextSpeed(8, 1)).toBe(8);
    expect(nextSpeed(0.5, -1)).toBe(0.5);
    expect(nextSpeed(1, -1)).toBe(0.5);
    expect(isSpeed(4)).toBe(true);
    expect(isSpeed(3)).toBe(false);
  });
});
