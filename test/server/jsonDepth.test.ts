/**
 * Deeply nested JSON bodies are refused with a 400 on every JSON route, before any handler
 * walks them (a 60 KB body of nested arrays once overflowed the stack in /attempts/abandon,
 * outside the handler's guard, and came back as a 500).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJson } from '../../src/server/jsonApi';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { StudyStore, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-depth-'));
const STUDY = 'depth-study';
let running: RunningServer;
let store: StudyStore;

beforeAll(async () => {
  store = StudyStore.open(':memory:');
  await createStudy(store, { id: STUDY, teams: ['heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1 }, TEST_PLATFORM);
  running = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store, sessionsPerMinute: 1000 })] }), 0);
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly error?: { readonly message?: string };
  readonly token?: string;
  readonly state?: { readonly step: { readonly block: number; readonly episode: number } };
}

async function post(path: string, body: string, token?: string): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`http://127.0.0.1:${running.port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-study-token': token } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

/** A replay field nested `depth` arrays deep: about 60 KB at 30,000. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('deeply nested JSON', () => {
  it('is a 400 naming the limit on every JSON route, the abandon route included', async () => {
    const { body: joined } = await post(`/api/study/${STUDY}/session`, JSON.stringify({ consent: true }));
    const token = joined.token!;
    const deep = `{"block":0,"episode":0,"attempt":1,"ticks":0,"replay":${nested(30_000)}}`;
    expect(deep.length).toBeGreaterThan(60_000);
    const abandon = await post(`/api/study/${STUDY}/attempts/abandon`, deep, token);
    expect(abandon.status).toBe(400);
    expect(abandon.body.error?.message).toMatch(new RegExp(`nests deeper than ${MAX_JSON_DEPTH} levels`));
    for (const path of ['/session', '/ratings', '/attempts']) {
      const r = await post(`/api/study/${STUDY}${path}`, `{"a":${nested(8000)}}`, token);
      expect(r.status, path).toBe(400);
      expect(r.body.error?.message, path).toMatch(/nests deeper/);
    }
    // Episodes are read by the checks (src/survey/episodeCheck.ts), whose strict shapes refuse a deep body at its first level.
    const { step } = (await post(`/api/study/${STUDY}/instructions`, '{}', token)).body.state!;
    const slot = `"block":${step.block},"episode":${step.episode}`;
    expect((await post(`/api/study/${STUDY}/attempts`, `{${slot}}`, token)).status).toBe(200);
    expect((await post(`/api/study/${STUDY}/episodes`, `{${slot},"replay":${nested(30_000)}}`, token)).status).toBe(400);
  });

  it('counts only brackets outside strings, so text full of brackets is not nesting', () => {
    const text = JSON.stringify({ reason: '['.repeat(500), nested: JSON.parse(nested(MAX_JSON_DEPTH - 1)) as unknown });
    expect(parseJson(text)).toMatchObject({ reason: '['.repeat(500) });
    expect(() => parseJson(`{"a":${nested(MAX_JSON_DEPTH)}}`)).toThrow(/nests deeper than/);
    expect(() => parseJson('"\\"[[["')).not.toThrow();
  });
});
