/**
 * The app server: the built app with isolation headers, its text and wasm in the encodings
 * the build made, cached or revalidated as each may change, page paths answered with the
 * app, and API routes mounted beside it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, createAppServer, healthRoute, listen } from '../../src/server/server';

let root: string;
let running: RunningServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'hillmind-dist-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(root, 'assets', 'index-AbCdEf12.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', 'ort.wasm'), Buffer.from([0, 97, 115, 109]));
  writeFileSync(join(root, 'assets', 'style.css'), 'body{}');
  // Text that compresses, and a wasm file like onnxruntime's (mostly repetitive bytes).
  writeFileSync(join(root, 'assets', 'main-Zx81Yq3k.js'), 'export const words = ['.concat('"arena", "zone", "agent", '.repeat(2000), '];\n'));
  writeFileSync(join(root, 'assets', 'ort-wasm-Qq12Ww34.wasm'), Buffer.concat([Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]), Buffer.alloc(200_000, 7)]));
  writeFileSync(join(root, 'picture.png'), Buffer.alloc(5000, 1));
  // The build's compressed copies (vite.config.ts).
  for (const file of ['index.html', 'assets/main-Zx81Yq3k.js', 'assets/ort-wasm-Qq12Ww34.wasm']) {
    const raw = readFileSync(join(root, file));
    writeFileSync(join(root, `${file}.br`), brotliCompressSync(raw));
    writeFileSync(join(root, `${file}.gz`), gzipSync(raw));
  }
  for (const file of ['index.html', 'index.html.br', 'index.html.gz']) utimesSync(join(root, file), new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'));
  running = await listen(
    createAppServer({
      root,
      routes: [
        healthRoute(),
        async (app) => {
          app.post('/api/echo', async (req) => ({ got: req.body }));
          app.get('/api/boom', async () => {
            throw new Error('broken handler');
          });
        },
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

/** A request with exactly these headers, and the body as sent (not decompressed, unlike fetch). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: running.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the app server', () => {
  it('serves the app with isolation headers and MIME types', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const js = await get('/assets/index-AbCdEf12.js');
    // mime's name for it (@fastify/send); browsers take either as a module script.
    expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript; charset=utf-8$/);
    expect(js.headers.get('cache-control')).toMatch(/immutable/);
    expect(await js.text()).toBe('console.log(1)');
    expect((await get('/assets/ort.wasm')).headers.get('content-type')).toBe('application/wasm');
    expect((await get('/assets/style.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const head = await raw('/assets/style.css', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('6');
  });

  it("sends text and wasm in the build's compressed copies, as the browser accepts, and says so to caches", async () => {
    const js = 'export const words = ['.concat('"arena", "zone", "agent", '.repeat(2000), '];\n');
    const br = await raw('/assets/main-Zx81Yq3k.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(js.length / 20);
    expect(brotliDecompressSync(br.body).toString()).toBe(js);
    const gz = await raw('/assets/main-Zx81Yq3k.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(js);
    const plain = await raw('/assets/main-Zx81Yq3k.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(js);
    const wasm = await raw('/assets/ort-wasm-Qq12Ww34.wasm', { 'accept-encoding': 'br' });
    expect([wasm.headers['content-encoding'], wasm.headers['content-type']]).toEqual(['br', 'application/wasm']);
    expect(brotliDecompressSync(wasm.body).length).toBe(200_008);
    // A HEAD says what a GET would send.
    const head = await raw('/assets/ort-wasm-Qq12Ww34.wasm', { 'accept-encoding': 'br' }, 'HEAD');
    expect([head.headers['content-encoding'], head.headers['content-length'], head.body.length]).toEqual(['br', String(wasm.body.length), 0]);
    // Images gain nothing: sent as they are, whatever the browser accepts.
    const png = await raw('/picture.png', { 'accept-encoding': 'br, gzip' });
    expect([png.headers['content-encoding'], png.headers.vary, png.body.length]).toEqual([undefined, undefined, 5000]);
  });

  it('honours q=0: brotli, else gzip, else none', async () => {
    const encoding = async (accept: string) => (await raw('/assets/main-Zx81Yq3k.js', { 'accept-encoding': accept })).headers['content-encoding'];
    expect(await encoding('gzip, deflate, br, zstd')).toBe('br');
    expect(await encoding('gzip;q=1.0, br;q=0')).toBe('gzip');
    expect(await encoding('identity')).toBeUndefined();
    expect(await encoding('br;q=0, gzip;q=0')).toBeUndefined();
  });

  it('revalidates what may change with an ETag or the modification time', async () => {
    const page = await raw('/', { 'accept-encoding': 'br' });
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['last-modified']).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    const etag = page.headers.etag!;
    expect(etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    const again = await raw('/', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect([again.status, again.body.length, again.headers.etag, again.headers.vary]).toEqual([304, 0, etag, 'Accept-Encoding']);
    // Each encoding is its own representation, with its own validator.
    const plain = await raw('/', {});
    expect(plain.headers.etag).toMatch(/^W\//);
    expect((await raw('/', { 'if-none-match': plain.headers.etag! })).status).toBe(304);
    expect((await raw('/', { 'if-none-match': 'W/"other"' })).status).toBe(200);
    expect((await raw('/', { 'if-modified-since': 'Fri, 02 Jan 2026 03:04:05 GMT' })).status).toBe(304);
    expect((await raw('/', { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).status).toBe(200);
  });

  it('answers page paths with the app and unknown files with 404', async () => {
    const page = await get('/play', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>t</title>');
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/%2e%2e/%2e%2e/etc/passwd')).status).toBeGreaterThanOrEqual(400);
    const malformed = await get('/%E0%A4%A');
    expect([malformed.status, await malformed.json()]).toEqual([400, { error: { kind: 'invalid', message: "malformed path '/%E0%A4%A': a path is UTF-8 percent-encoded" } }]);
  });

  it('mounts API routes', async () => {
    const health = await get('/api/health');
    expect(health.status).toBe(200);
    expect(health.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(await health.json()).toMatchObject({ ok: true, service: 'hillmind' });
    const echo = await get('/api/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
    expect(await echo.json()).toEqual({ got: { a: 1 } });
    const wrong = await get('/api/echo');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(await wrong.json()).toEqual({ error: { kind: 'method-not-allowed', message: 'GET is not allowed on /api/echo; it takes POST' } });
    expect(await (await get('/api/nothing', { method: 'POST' })).json()).toEqual({ error: { kind: 'not-found', message: 'no API route POST /api/nothing' } });
    const boom = await get('/api/boom');
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: { kind: 'server', message: 'broken handler' } });
    const del = await get('/', { method: 'DELETE' });
    expect([del.status, del.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});
