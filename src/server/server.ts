/**
 * The one Node server of the product (plain node:http): the built app from dist/ with the
 * cross-origin isolation headers threaded WebAssembly needs, and API routes other modules
 * mount ({ method, path, handle }): the health check here, the LLM proxy and the study API
 * beside it.
 */
import { createReadStream, type Stats, promises as fs } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

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

/** Read a request body as text, refusing it (early when declared) past `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
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

function matches(route: Route, path: string): boolean {
  if (route.path.endsWith('/*')) return path === route.path.slice(0, -2) || path.startsWith(route.path.slice(0, -1));
  return route.path === path;
}

export function createAppServer(options: ServerOptions): Server {
  const root = resolve(options.root);
  const routes = options.routes ?? [];
  return createServer((req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    handle(root, routes, req, res).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent) sendJson(res, 500, { error: message });
      else res.destroy();
    });
  });
}

async function handle(root: string, routes: readonly Route[], req: IncomingMessage, res: ServerResponse): Promise<void> {
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
  await serveStatic(root, path, req, res, method === 'HEAD');
}

async function statOrNull(file: string): Promise<Stats | null> {
  try {
    return await fs.stat(file);
  } catch {
    return null;
  }
}

async function serveStatic(root: string, path: string, req: IncomingMessage, res: ServerResponse, head: boolean): Promise<void> {
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
  // Vite puts content-hashed files under /assets/: they never change.
  const immutable = path.startsWith('/assets/') && /-[A-Za-z0-9_-]{8,}\./.test(path);
  res.writeHead(200, {
    'Content-Type': mimeType(target),
    'Content-Length': stats.size,
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'Last-Modified': stats.mtime.toUTCString(),
  });
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
