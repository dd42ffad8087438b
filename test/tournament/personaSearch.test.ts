import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, Rng } from '../../src/sim';
import { PERSONAS, STUDY_TREE, resolveTeam, treeParameters } from '../../src/teams';
import { describeParameters, proposeParameters, searchPersonas, treeVariant } from '../../src/tournament/personaSearch';
import { TEST_PLATFORM } from '../helpers/platform';

describe('the persona generator', () => {
  it('writes each proposal as a variant that gives the tree exactly its parameters', () => {
    const rng = new Rng(5);
    for (let i = 0; i < 20; i++) {
      const p = proposeParameters(rng, DEFAULT_CONFIG.tickHz);
      const { variant } = resolveTeam(treeVariant('bt-scripted', p, DEFAULT_CONFIG.tickHz));
      expect(treeParameters(variant.settings, DEFAULT_CONFIG)).toEqual(p);
    }
    expect(describeParameters(STUDY_TREE).prompt).toBe("Play this way: play the study's tree.");
    expect(describeParameters({ ...STUDY_TREE, securers: 0, retreatAt: 'never' }).description).toBe('Never retreat to heal; never secure the zone.');
  });

  it('keeps a proposal only when it is at least the threshold away from every kept persona, and the run repeats', async () => {
    const options = { platform: TEST_PLATFORM, proposals: 4, episodes: 2, seed: 3, threshold: 0.03 };
    const result = await searchPersonas(options);
    expect(result.kept.slice(0, PERSONAS.length).map((k) => k.persona.name)).toEqual(PERSONAS.map((p) => p.name));
    const generated = result.kept.filter((k) => k.generated);
    expect(generated.length + result.rejected).toBe(4);
    for (const k of generated) expect(k.novelty!).toBeGreaterThanOrEqual(0.03);
    expect(result.coverageAfter).toBeGreaterThanOrEqual(result.coverageBefore);
    const again = await searchPersonas(options);
    expect(again.kept.map((k) => k.variant)).toEqual(result.kept.map((k) => k.variant));
  });
});
