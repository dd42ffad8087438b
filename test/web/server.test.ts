import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, createAppServer, healthRoute, listen, readBody, sendJson } from '../../src/server/server';

let root: string;
let running: RunningServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'hillmind-dist-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(root, 'assets', 'index-AbCdEf12.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', 'ort.wasm'), Buffer.from([0, 97, 115, 109]));
  writeFileSync(join(root, 'assets', 'style.css'), 'body{}');
  running = await listen(
    createAppServer({
      root,
      routes: [
        healthRoute(),
        {
          method: 'POST',
          path: '/api/echo',
          handle: async (req, res) => sendJson(res, 200, { got: JSON.parse(await readBody(req)) }),
        },
        { method: 'GET', path: '/api/boom', handle: () => { throw new Error('broken handler'); } },
      ],
    }),
    0,
  );
});

afterAll(async () => {
  await running.close();
  rmSync(root, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${running.port}${path}`, init);

describe('the app server', () => {
  it('serves the app with isolation headers and MIME types', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const js = await get('/assets/index-AbCdEf12.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toMatch(/immutable/);
    expect(await js.text()).toBe('console.log(1)');
    expect((await get('/assets/ort.wasm')).headers.get('content-type')).toBe('application/wasm');
    expect((await get('/assets/style.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const head = await get('/assets/style.css', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('6');
  });

  it('answers page paths with the app and unknown files with 404', async () => {
    const page = await get('/play', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>t</title>');
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/%2e%2e/%2e%2e/etc/passwd')).status).toBeGreaterThanOrEqual(400);
    expect((await get('/%E0%A4%A')).status).toBe(400);
  });

  it('mounts API routes', async () => {
    const health = await get('/api/health');
    expect(health.status).toBe(200);
    expect(health.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(await health.json()).toMatchObject({ ok: true, service: 'hillmind' });
    const echo = await get('/api/echo', { method: 'POST', body: JSON.stringify({ a: 1 }) });
    expect(await echo.json()).toEqual({ got: { a: 1 } });
    const wrong = await get('/api/echo');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect((await get('/api/nothing')).status).toBe(404);
    const boom = await get('/api/boom');
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: 'broken handler' });
    expect((await get('/', { method: 'DELETE' })).status).toBe(405);
  });
});
