/**
 * The one Node server of the product, on fastify: the built app from dist/ with the
 * cross-origin isolation headers threaded WebAssembly needs, and the API route groups other
 * modules make (fastify plugins): the health check here, the LLM proxy and the study API
 * beside it.
 *
 * Static files (@fastify/static): text and WebAssembly go out in the brotli or gzip copy
 * the build made (vite.config.ts), as the browser accepts; content-hashed assets are cached
 * for a year, everything else revalidated with its ETag or modification time (304 when
 * unchanged). Paths without an extension that a browser asks as a page get the app.
 * Other answers (the API's JSON) are compressed as they go (@fastify/compress). Every
 * request naming another host than the server's gets a 403 (DNS rebinding: origin.ts);
 * every error of an API is answered in one shape (apiError.ts).
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { basename, extname, relative, resolve, sep } from 'node:path';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest, type HTTPMethods } from 'fastify';
import { ApiError, replyWithError } from './apiError';
import { allowedHosts, foreignHost } from './origin';

/** A group of API routes: a fastify plugin, registered in a context of its own (its hooks, parsers and limits stay its own). */
export type ApiRoutes = FastifyPluginAsync;

export interface ServerOptions {
  /** Folder of the built app (dist/); none: the API alone. */
  readonly root?: string;
  readonly routes?: readonly ApiRoutes[];
  /**
   * Host names the server answers to besides localhost, 127.0.0.1 and [::1]: the host it
   * binds, and a deployment's names behind a proxy. Requests naming any other host get a
   * 403 (DNS rebinding: see origin.ts).
   */
  readonly hosts?: readonly string[];
  /**
   * The reverse proxies whose X-Forwarded-For names the client (trustedProxies.ts); none:
   * the client is the connection's address.
   */
  readonly trustedProxies?: readonly string[];
}

/** Every response carries these: COOP/COEP make the page cross-origin isolated. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

/** GET /api/health: the server is up; what it serves. */
export function healthRoute(info: Record<string, unknown> = {}): ApiRoutes {
  const started = Date.now();
  return async (app) => {
    app.get('/api/health', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { ok: true, service: 'hillmind', uptimeSeconds: Math.round((Date.now() - started) / 1000), ...info };
    });
  };
}

/** Vite puts content-hashed files under /assets/: they never change. */
function immutable(root: string, file: string): boolean {
  const path = relative(root, file).split(sep).join('/');
  return path.startsWith('assets/') && /-[A-Za-z0-9_-]{8,}\./.test(basename(path));
}

/** Whether a file is sent in other encodings too: it is a compressed copy, or has one (the build makes them: vite.config.ts). */
function hasEncodings(file: string): boolean {
  return /\.(br|gz)$/.test(file) || existsSync(`${file}.br`) || existsSync(`${file}.gz`);
}

const ALL_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** The app's pages: GET or HEAD of a path without an extension, asked as a page. */
function pageRequest(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0]!;
  return (request.method === 'GET' || request.method === 'HEAD') && extname(path) === '' && (request.headers.accept ?? '').includes('text/html');
}

export function createAppServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    // A request the server is still reading when it stops does not hold it open.
    forceCloseConnections: true,
    ...(options.trustedProxies?.length ? { trustProxy: [...options.trustedProxies] } : {}),
    frameworkErrors: (err, request, reply) => {
      reply.headers(SECURITY_HEADERS);
      const url = request.raw.url?.slice(0, 100) ?? '';
      void replyWithError(err.code === 'FST_ERR_BAD_URL' ? new ApiError(400, `malformed path '${url}': a path is UTF-8 percent-encoded`) : err, request, reply);
    },
  });
  const hosts = allowedHosts(options.hosts);
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    const refusal = foreignHost(request.raw, hosts);
    if (refusal) throw new ApiError(refusal.status, refusal.message);
  });
  app.setErrorHandler(replyWithError);

  // Which methods each path answers, for the 405s below.
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const known = methods.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) known.add(m);
    methods.set(route.url, known);
  });

  void app.register(compress, { encodings: ['br', 'gzip'] });
  const root = options.root === undefined ? null : resolve(options.root);
  if (root) {
    void app.register(fastifyStatic, {
      root,
      preCompressed: true,
      cacheControl: false,
      setHeaders: (res, file) => {
        // The rest (pages, models) is revalidated on every use, which costs a 304 when it did not change.
        res.setHeader('Cache-Control', immutable(root, file) ? 'public, max-age=31536000, immutable' : 'no-cache');
        // Caches must keep the encodings apart.
        if (hasEncodings(file)) res.setHeader('Vary', 'Accept-Encoding');
      },
    });
  }
  for (const routes of options.routes ?? []) void app.register(routes);
  void app.register(async (api) => {
    api.all('/api/*', async (request) => {
      throw new ApiError(404, `no API route ${request.method} ${request.url.split('?')[0]}`);
    });
    // A path that answers some methods answers the others with 405 and the ones it takes.
    for (const [url, known] of methods) {
      const others = ALL_METHODS.filter((m) => !known.has(m));
      if (others.length === 0) continue;
      const allow = ALL_METHODS.filter((m) => known.has(m)).join(', ');
      api.route({
        method: others,
        url,
        handler: async (request) => {
          throw new ApiError(405, `${request.method} is not allowed on ${request.url.split('?')[0]}; it takes ${allow}`, { headers: { allow } });
        },
      });
    }
  });
  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    if (root && pageRequest(request)) return reply.sendFile('index.html');
    reply.code(404).type('text/plain; charset=utf-8');
    return `not found: ${request.url.split('?')[0]}\n`;
  });
  return app;
}

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** Listen on `port` (0 picks a free one) and `host`. */
export async function listen(app: FastifyInstance, port: number, host = '127.0.0.1'): Promise<RunningServer> {
  try {
    await app.listen({ port, host });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new Error(`port ${port} is in use: stop the other server or set PORT`);
    throw err;
  }
  const address = app.server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  const shown = host === '127.0.0.1' || host === '::1' || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return { server: app.server, port: actual, url: `http://${shown}:${actual}`, close: () => app.close() };
}
