/**
 * The episode pool's threads build their platform from the spec they are sent, and close it
 * when the pool closes: each thread answers on the pool's control channel, so a thread's own
 * local engine is disposed before the thread ends (not left to the 10 s fallback).
 */
import { expect, it } from 'vitest';
import { readPlatformSpec } from '../../src/teams/nodePlatform';
import { episodePool } from '../../src/tournament/pool';

it('plays on threads built from the spec, and every thread closes its platform when the pool closes', async () => {
  const pool = episodePool(2, 1, readPlatformSpec({}));
  const episode = (index: number) => ({ key: `heuristic|random|${index}`, a: 'heuristic', b: 'random', index, seed: 10 + index, blue: 'heuristic', red: 'random' });
  const records = await Promise.all([pool.play(episode(0)), pool.play(episode(1))]);
  expect(records.map((r) => r.key)).toEqual(['heuristic|random|0', 'heuristic|random|1']);
  expect(await pool.close()).toBe(2);
});
