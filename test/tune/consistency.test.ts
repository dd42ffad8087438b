import { describe, expect, it } from 'vitest';
import { buildExamSet, plannerLabeller } from '../../src/match';
import { plannerConsistency, consistencyMarkdown } from '../../src/tune/consistency';
import { TEST_PLATFORM } from '../helpers/platform';

const OPTIONS = { size: 10, seeds: 1 } as const;

describe('plannerConsistency', () => {
  it("asks the planner again at the set's worlds and scores each labeller over the living agents' choices", async () => {
    const set = await buildExamSet(TEST_PLATFORM, { ...OPTIONS, every: 25, command: 'test', planner: plannerLabeller(TEST_PLATFORM) });
    const c = await plannerConsistency(TEST_PLATFORM, set, { ...OPTIONS, rollouts: 2 });
    const living = set.items.reduce((n, i) => n + i.situation.agents.filter((a) => a.alive).length, 0);
    expect(c.situations).toBe(set.items.length);
    expect(c.rows.map((r) => r.against)).toEqual(["the set's planner label", "the set's planner label", 'itself under another seed', "the set's planner label"]);
    for (const row of c.rows) {
      expect(row.choices).toBe(living);
      expect(row.agreement).toBeGreaterThanOrEqual(0);
      expect(row.agreement).toBeLessThanOrEqual(1);
    }
    // The rules' row is the set's own two labels side by side.
    const rulesAgreed = set.items.reduce((n, i) => n + i.situation.agents.filter((a, s) => a.alive && i.rules[s] === i.planner![s]).length, 0);
    expect(c.rows[3]!.agreement).toBeCloseTo(rulesAgreed / living, 12);
    expect(consistencyMarkdown(c)).toContain(`| the planner with 2 rollouts an option | itself under another seed |`);
  });

  it('refuses a set its matches do not give back, naming the situation', async () => {
    const set = await buildExamSet(TEST_PLATFORM, { ...OPTIONS, every: 25, command: 'test', planner: plannerLabeller(TEST_PLATFORM) });
    const first = set.items[0]!;
    const other = first.planner!.map((s) => (s === 'combat' ? 'retreat' : 'combat'));
    const changed = { ...set, items: [{ ...first, planner: other }, ...set.items.slice(1)] };
    await expect(plannerConsistency(TEST_PLATFORM, changed, { ...OPTIONS, rollouts: 1 })).rejects.toThrow(`situation ${first.id}'s planner label came back otherwise`);
    await expect(plannerConsistency(TEST_PLATFORM, set, { size: 12, seeds: 1, rollouts: 1 })).rejects.toThrow(/built with other options or by other code/);
  });
});
