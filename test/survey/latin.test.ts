import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StudyStore, blockOrders, createStudy, nextRow, williamsDesign } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

describe('Williams design', () => {
  for (const k of [2, 3, 4, 5, 6]) {
    it(`k = ${k}: every team once per position, every ordered pair adjacent equally often`, () => {
      const rows = williamsDesign(k);
      expect(rows).toHaveLength(k % 2 === 0 ? k : 2 * k);
      for (const row of rows) expect([...row].sort()).toEqual(Array.from({ length: k }, (_, i) => i));
      for (let pos = 0; pos < k; pos++) {
        const counts = new Array<number>(k).fill(0);
        for (const row of rows) counts[row[pos]!]!++;
        expect(new Set(counts).size).toBe(1);
      }
      const pairs = new Map<string, number>();
      for (const row of rows) for (let i = 0; i + 1 < k; i++) pairs.set(`${row[i]}>${row[i + 1]}`, (pairs.get(`${row[i]}>${row[i + 1]}`) ?? 0) + 1);
      expect(pairs.size).toBe(k * (k - 1));
      expect(new Set(pairs.values()).size).toBe(1);
    });
  }

  it('three teams give all six orders', () => {
    const orders = blockOrders(['bt', 'llm', 'flat']).map((r) => r.join(' '));
    expect(new Set(orders).size).toBe(6);
  });

  it('the next participant takes the least-held row', () => {
    expect(nextRow(6, [])).toBe(0);
    expect(nextRow(6, [0, 1, 2])).toBe(3);
    expect(nextRow(3, [0, 1, 2, 0, 2])).toBe(1);
  });
});

describe('counterbalancing by the server', () => {
  it('spreads participants evenly over the orders, reusing slots that were abandoned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hillmind-latin-'));
    let now = Date.parse('2026-01-01T10:00:00Z');
    const store = StudyStore.open(join(dir, 's.sqlite'), { now: () => new Date(now) });
    try {
      const { study } = await createStudy(store, { id: 'latin', teams: ['bt-scripted', 'heuristic', 'random'], abandonAfterMinutes: 60 }, TEST_PLATFORM);
      const orders: string[] = [];
      for (let i = 0; i < 12; i++) orders.push(store.createParticipant(study, {}, null).participant.plan.order.join(' '));
      const counts = new Map<string, number>();
      for (const o of orders) counts.set(o, (counts.get(o) ?? 0) + 1);
      expect(counts.size).toBe(6);
      expect([...counts.values()]).toEqual([2, 2, 2, 2, 2, 2]);
      // Two hours later, everyone but participant 1 (who finished) has abandoned: their rows are free again.
      store.markCompleted(store.participants('latin')[0]!.id);
      now += 2 * 3600_000;
      const next = store.createParticipant(study, {}, null).participant;
      expect(next.number).toBe(13);
      expect(next.orderRow).toBe(1);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
