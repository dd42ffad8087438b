/**
 * A request body over its limit is answered with a 413 the client can read, over a real
 * HTTP connection: the server reads and drops the rest of the body before it closes, so the
 * client does not see a reset connection instead of the answer.
 */
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { STUDY_MAX_BODY, studyRoutes } from '../../src/server/studyRoutes';
import { StudyStore, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-body-'));
let running: RunningServer;
let store: StudyStore;

beforeAll(async () => {
  store = StudyStore.open(':memory:');
  await createStudy(store, { id: 'body-study', teams: ['heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1 }, TEST_PLATFORM);
  running = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store, sessionsPerMinute: 1000 })] }), 0);
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * POST `bytes` bytes of JSON and read the answer only once the whole body is sent, as
 * simple HTTP clients do (Python's http.client, a script's socket): the status and body,
 * or the connection's error.
 */
function post(bytes: number, declared: boolean): Promise<{ status: number; body: unknown } | { error: string }> {
  return new Promise((done) => {
    const socket = connect(running.port, '127.0.0.1');
    let text = '';
    socket.pause();
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
    socket.on('end', () => {
      const [head, body] = text.split('\r\n\r\n');
      done({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head ?? '')?.[1]), body: JSON.parse(body ?? '') as unknown });
    });
    const length = declared ? `Content-Length: ${bytes}` : 'Transfer-Encoding: chunked';
    socket.write(`POST /api/study/body-study/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${length}\r\n\r\n`);
    const body = Buffer.alloc(bytes, 0x20);
    const framed = declared ? body : Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    socket.end(framed, () => socket.resume());
  });
}

describe('a body over the limit', () => {
  it.each([
    ['declared in Content-Length', true],
    ['sent chunked', false],
  ])('%s gets a 413 saying the limit, not a reset connection', async (_, declared) => {
    const answer = await post(4 * 1024 * 1024, declared);
    expect(answer).toEqual({ status: 413, body: { error: { kind: 'too-large', message: `the request is larger than ${STUDY_MAX_BODY} bytes` } } });
    expect(store.participants('body-study')).toEqual([]);
  });
});
