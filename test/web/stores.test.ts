import { describe, expect, it } from 'vitest';
import {
  DECISION_HISTORY,
  FEED_LIMIT,
  createStores,
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
    for (let tick = 0; tick < DECISION_HISTORY + 3; tick++) {
      pushDecision(strategist, { tick, team: 0, skills: ['navigate', 'secure'], source: 'behavior-tree' });
    }
    pushDecision(strategist, { tick: 4, team: 1, skills: ['combat', 'combat'], source: 'llm', rationale: 'they are near' });
    const [blue, red] = strategist.getState().teams;
    expect(blue.decisions).toHaveLength(DECISION_HISTORY);
    expect(blue.decisions[0]!.tick).toBe(DECISION_HISTORY + 2);
    expect(blue.humanSlots).toEqual([0]);
    expect(red.decisions[0]!.rationale).toBe('they are near');
    setDecisions(strategist, [], red.decisions);
    expect(strategist.getState().teams[0].decisions).toEqual([]);
    expect(strategist.getState().teams[0].controller).toBe('human + bt-scripted');
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
