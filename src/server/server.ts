/**
 * The one Node server of the product (plain node:http): the built app from dist/ with the
 * cross-origin isolation headers threaded WebAssembly needs, and API routes other modules
 * mount ({ method, path, handle }): the health check here, the LLM proxy and the study API
 * beside it.
 *
 * Static files: text and WebAssembly go out compressed (brotli, else gzip, as the browser
 * accepts), each file compressed once and kept in memory; content-hashed assets are cached
 * for a year, everything else revalidated with an ETag (304 when unchanged).
 */
import { createReadStream, type Stats, promises as fs } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { allowedHosts, foreignHost } from './origin';

export interface Route {
  /** HTTP method, e.g. 'GET' or 'POST'. */
  readonly method: string;
  /** Exact path ('/api/health'), or a prefix ending in '/*' ('/api/survey/*'). */
  readonly path: string;
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

export interface ServerOptions {
  /** Folder of the built app (dist/). */
  readonly root: string;
  readonly routes?: readonly Route[];
  /** Most bytes of compressed files kept in memory (default 64 MiB; the 14 MB wasm takes about 3 MB). */
  readonly compressedCacheBytes?: number;
  /**
   * Host names the server answers to besides localhost, 127.0.0.1 and [::1]: the host it
   * binds, and a deployment's names behind a proxy. Requests naming any other host get a
   * 403 (DNS rebinding: see origin.ts).
   */
  readonly hosts?: readonly string[];
}

/** Every response carries these: COOP/COEP make the page cross-origin isolated. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

export const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.wav': 'audio/wav',
};

export function mimeType(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Send a JSON body with a status and any extra headers (Retry-After, Connection), never
 * cached. A response already under way cannot change its status: it is only ended.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': MIME_TYPES['.json']!, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', ...headers });
  res.end(text);
}

/** A request body over its limit (the route answers 413). */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body over ${limit} bytes`);
  }
}

/**
 * Read a request body, refusing it (early when declared) past `limit` bytes. A refused
 * body is left unread, paused, for refuseBody to drain: the client then hears the 413
 * instead of a reset connection.
 */
export function readBodyBytes(req: IncomingMessage, limit = 1 << 20): Promise<Buffer> {
  return new Promise<Buffer>((done, fail) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      fail(new BodyTooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        req.pause();
        fail(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      done(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      stop();
      fail(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** readBodyBytes as UTF-8 text. */
export async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  return (await readBodyBytes(req, limit)).toString('utf8');
}

/**
 * Most bytes of a refused request body read and dropped before its refusal is sent. A
 * server that answers and closes while the client is still sending makes the client's
 * system reset the connection, and the client sees that instead of the answer; past this
 * bound the answer is sent anyway and the connection closed.
 */
export const DISCARD_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Answer a request with a JSON refusal. A body left unread (too large, the wrong type,
 * refused before reading) is read and dropped first (up to `discardMax` bytes), and the
 * connection then closes.
 */
export function refuseBody(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}, discardMax = DISCARD_MAX_BYTES): void {
  if (req.complete) {
    // All of it has arrived: nothing is left for the connection to trip over.
    sendJson(res, status, body, headers);
    return;
  }
  const answer = () => sendJson(res, status, body, { ...headers, Connection: 'close' });
  const declared = Number(req.headers['content-length'] ?? NaN);
  const cutOff = () => {
    answer();
    res.once('finish', () => req.destroy());
  };
  if (Number.isFinite(declared) && declared > discardMax) {
    cutOff();
    return;
  }
  let dropped = 0;
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped <= discardMax) return;
    req.off('data', onData);
    req.off('end', answer);
    cutOff();
  };
  req.on('data', onData);
  req.once('end', answer);
  req.once('error', () => req.destroy());
  req.resume();
}

/** GET /api/health: the server is up; what it serves. */
export function healthRoute(info: Record<string, unknown> = {}): Route {
  const started = Date.now();
  return {
    method: 'GET',
    path: '/api/health',
    handle: (_req, res) => sendJson(res, 200, { ok: true, service: 'hillmind', uptimeSeconds: Math.round((Date.now() - started) / 1000), ...info }),
  };
}

/** Types worth compressing: text and WebAssembly. Images, fonts, audio and model weights hardly shrink. */
export function compressible(type: string): boolean {
  return /^(text\/|application\/(json|wasm)|image\/svg\+xml)/.test(type);
}

export type ContentEncoding = 'br' | 'gzip';

/** The encoding to send for an Accept-Encoding header: brotli, else gzip, else none (q=0 refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): ContentEncoding | null {
  const q = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find((m) => m)?.[1];
    q.set(name, weight === undefined ? 1 : Number(weight));
  }
  const allowed = (name: string) => (q.get(name) ?? q.get('*') ?? 0) > 0;
  if (allowed('br')) return 'br';
  if (allowed('gzip')) return 'gzip';
  return null;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Compressed copies of static files, made once per file version (path, size and mtime)
 * and kept, the oldest dropped past `maxBytes`. Compression runs on libuv's thread pool,
 * so the first request for the wasm (about 0.7 s at brotli quality 5) blocks no one else;
 * requests meanwhile share the same work. Quality 5 is where brotli stops paying: quality
 * 9 takes 2.4 times as long for 5% less.
 */
export class CompressedFiles {
  private readonly entries = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(file: string, stats: Stats, encoding: ContentEncoding): Promise<Buffer> {
    const key = `${encoding}:${file}:${stats.size}:${stats.mtimeMs}`;
    const cached = this.entries.get(key);
    if (cached) return cached;
    const made = fs.readFile(file).then((raw) =>
      encoding === 'br'
        ? brotliAsync(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
        : gzipAsync(raw, { level: 6 }),
    );
    this.entries.set(key, made);
    made.then(
      (buf) => this.keep(key, buf.length),
      () => this.entries.delete(key),
    );
    return made;
  }

  private keep(key: string, size: number): void {
    if (!this.entries.has(key)) return;
    this.sizes.set(key, size);
    this.bytes += size;
    for (const [old, oldSize] of this.sizes) {
      if (this.bytes <= this.maxBytes || old === key) break;
      this.sizes.delete(old);
      this.entries.delete(old);
      this.bytes -= oldSize;
    }
  }
}

/** A weak validator from the file's size and modification time: the same for every encoding of it. */
export function etagOf(stats: Stats): string {
  return `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
}

/** True when the request's validators say the browser's copy is current (answer 304). */
function notModified(req: IncomingMessage, etag: string, stats: Stats): boolean {
  const match = req.headers['if-none-match'];
  if (match !== undefined) return match.split(',').some((t) => t.trim() === etag || t.trim() === '*');
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(stats.mtimeMs / 1000) * 1000 <= since;
}

function matches(route: Route, path: string): boolean {
  if (route.path.endsWith('/*')) return path === route.path.slice(0, -2) || path.startsWith(route.path.slice(0, -1));
  return route.path === path;
}

export function createAppServer(options: ServerOptions): Server {
  const root = resolve(options.root);
  const routes = options.routes ?? [];
  const compressed = new CompressedFiles(options.compressedCacheBytes);
  const hosts = allowedHosts(options.hosts);
  return createServer((req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const refusal = foreignHost(req, hosts);
    if (refusal) {
      refuseBody(req, res, refusal.status, { error: refusal.message });
      return;
    }
    handle(root, routes, compressed, req, res).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) sendJson(res, 500, { error: message });
      else res.destroy();
    });
  });
}

async function handle(root: string, routes: readonly Route[], compressed: CompressedFiles, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    sendJson(res, 400, { error: 'malformed path' });
    return;
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const onPath = routes.filter((r) => matches(r, path));
  const route = onPath.find((r) => r.method.toUpperCase() === method);
  if (route) {
    await route.handle(req, res);
    return;
  }
  if (onPath.length > 0) {
    res.setHeader('Allow', onPath.map((r) => r.method.toUpperCase()).join(', '));
    sendJson(res, 405, { error: `${method} is not allowed on ${path}` });
    return;
  }
  if (path === '/api' || path.startsWith('/api/')) {
    sendJson(res, 404, { error: `no API route ${method} ${path}` });
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    sendJson(res, 405, { error: `${method} is not allowed on static files` });
    return;
  }
  await serveStatic(root, path, compressed, req, res, method === 'HEAD');
}

async function statOrNull(file: string): Promise<Stats | null> {
  try {
    return await fs.stat(file);
  } catch {
    return null;
  }
}

async function serveStatic(root: string, path: string, compressed: CompressedFiles, req: IncomingMessage, res: ServerResponse, head: boolean): Promise<void> {
  const file = resolve(join(root, normalize(path)));
  if (file !== root && !file.startsWith(root + sep)) {
    sendJson(res, 403, { error: 'outside the app folder' });
    return;
  }
  let target = file;
  let stats = await statOrNull(target);
  if (stats?.isDirectory()) {
    target = join(target, 'index.html');
    stats = await statOrNull(target);
  }
  // Paths without an extension are the app's own pages: answer with index.html.
  if (!stats && extname(path) === '' && (req.headers.accept ?? '').includes('text/html')) {
    target = join(root, 'index.html');
    stats = await statOrNull(target);
  }
  if (!stats || !stats.isFile()) {
    res.writeHead(404, { 'Content-Type': MIME_TYPES['.txt']! });
    res.end(`not found: ${path}\n`);
    return;
  }
  // Vite puts content-hashed files under /assets/: they never change. The rest (pages,
  // models) is revalidated on every use, which costs a 304 when it did not change.
  const immutable = path.startsWith('/assets/') && /-[A-Za-z0-9_-]{8,}\./.test(path);
  const type = mimeType(target);
  const etag = etagOf(stats);
  const headers: Record<string, string | number> = {
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'Last-Modified': stats.mtime.toUTCString(),
    ETag: etag,
  };
  const encodable = compressible(type);
  // Caches must keep the encodings apart.
  if (encodable) headers.Vary = 'Accept-Encoding';
  if (notModified(req, etag, stats)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const encoding = encodable ? chooseEncoding(req.headers['accept-encoding']) : null;
  if (encoding) {
    const body = await compressed.get(target, stats, encoding);
    res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Encoding': encoding, 'Content-Length': body.length });
    res.end(head ? undefined : body);
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': stats.size });
  if (head) {
    res.end();
    return;
  }
  await new Promise<void>((done, fail) => {
    const stream = createReadStream(target);
    stream.on('error', fail);
    res.on('close', () => {
      stream.destroy();
      done();
    });
    stream.pipe(res);
  });
}

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** Listen on `port` (0 picks a free one) and `host`. */
export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<RunningServer> {
  return new Promise((done, fail) => {
    const onError = (err: NodeJS.ErrnoException) => {
      fail(err.code === 'EADDRINUSE' ? new Error(`port ${port} is in use: stop the other server or set PORT`) : err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      const shown = host === '127.0.0.1' || host === '::1' || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
      done({
        server,
        port: actual,
        url: `http://${shown}:${actual}`,
        close: () =>
          new Promise<void>((closed) => {
            server.close(() => closed());
            server.closeAllConnections();
          }),
      });
    });
  });
}
