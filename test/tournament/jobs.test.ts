/**
 * The parts of the queue that need no Redis: jobs cut from the plan, the manifest check a
 * worker makes, and the Redis address.
 */
import { describe, expect, it } from 'vitest';
import { planJobs } from '../../src/tournament/jobs';
import { manifestDifferences } from '../../src/tournament/manifest';
import { planEpisodes } from '../../src/tournament/plan';
import { parseRedisAddress } from '../../src/tournament/redis';

describe('planJobs', () => {
  const plan = planEpisodes({ teams: ['bt-scripted', 'heuristic', 'llm:format=json'], episodes: 5, seed: 1 });

  it('cuts each matchup into runs of at most n episodes, every episode in exactly one job, in plan order', () => {
    const jobs = planJobs(plan, 2);
    expect(jobs.map((j) => j.episodes.length)).toEqual([2, 2, 1, 2, 2, 1, 2, 2, 1]);
    expect(jobs.flatMap((j) => j.episodes)).toEqual(plan);
    for (const job of jobs) expect(new Set(job.episodes.map((e) => `${e.a}|${e.b}`)).size).toBe(1);
  });

  it('names a job by its episode key, or the range it holds, without the colons BullMQ refuses', () => {
    expect(planJobs(plan, 1).map((j) => j.id).slice(0, 2)).toEqual(['bt-scripted|heuristic|0', 'bt-scripted|heuristic|1']);
    const ids = planJobs(plan, 4).map((j) => j.id);
    expect(ids).toContain('bt-scripted|heuristic|0-3');
    expect(ids).toContain('heuristic|llm%3Aformat=json|4');
    for (const id of ids) expect(id).not.toContain(':');
    expect(planJobs(plan, 4)).toEqual(planJobs(plan, 4));
  });
});

describe('manifestDifferences', () => {
  const manifest = { code: { version: '0.1.0' }, fingerprints: { code: 'aaaa', config: 'bbbb', 'model:flat': 'cccc' } };

  it('is empty for the same code, config and models', () => {
    expect(manifestDifferences(manifest, structuredClone(manifest))).toEqual([]);
  });

  it('names each difference with both values', () => {
    const here = { code: { version: '0.2.0' }, fingerprints: { code: 'aaaa', config: 'dddd' } };
    expect(manifestDifferences(manifest, here)).toEqual([
      'code version is 0.2.0 here, 0.1.0 in the manifest',
      'config is dddd here, bbbb in the manifest',
      'model:flat is missing here (cccc in the manifest)',
    ]);
    expect(manifestDifferences(manifest, { ...manifest, fingerprints: { ...manifest.fingerprints, code: 'eeee' } })).toEqual(['code is eeee here, aaaa in the manifest']);
  });
});

describe('parseRedisAddress', () => {
  it('reads host, port, database, user and password, and shows no password', () => {
    const a = parseRedisAddress('redis://ann:s%40cret@queue.example:6380/2');
    expect(a.options).toMatchObject({ host: 'queue.example', port: 6380, db: 2, username: 'ann', password: 's@cret' });
    expect(a.options.tls).toBeUndefined();
    expect(a.shown).toBe('redis://queue.example:6380/2');
  });

  it('turns on TLS for rediss://, defaults the port, and takes the password from outside the URL', () => {
    const a = parseRedisAddress('rediss://queue.example', 'from-env');
    expect(a.options).toMatchObject({ host: 'queue.example', port: 6379, password: 'from-env', tls: { servername: 'queue.example' } });
    expect(parseRedisAddress('redis://:inline@h:1', 'from-env').options.password).toBe('inline');
  });

  it('refuses what is not a Redis URL, saying what it wants', () => {
    expect(() => parseRedisAddress('127.0.0.1:6379')).toThrow(/--queue must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => parseRedisAddress('http://h:6379')).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => parseRedisAddress('redis://h:6379/x')).toThrow(/database must be a number/);
  });
});
