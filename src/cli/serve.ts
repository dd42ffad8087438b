/**
 * npm start: serve the built app and its API where PORT and HOST say (by default on this
 * machine only; --help names the port). `npm start` builds first.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { llmSettingsOf } from '../llm';
import { defaultCacheDir } from '../llm/node';
import { episodeCheckPool } from '../server/episodeChecks';
import { llmProxyRoutes } from '../server/llmProxy';
import { llmFilesRoutes } from '../server/llmFiles';
import { lendableFiles } from '../llm/servedFiles';
import { ProxyDecisionCache } from '../server/llmProxyCache';
import { type ApiRoutes, createAppServer, healthRoute, listen } from '../server/server';
import { studyRoutes } from '../server/studyRoutes';
import { parseTrustedProxies } from '../server/trustedProxies';
import { DEFAULT_STUDY_DB, studyDbPath } from '../survey';
import { SHIPPED_MODEL_DIR } from '../skills/nodeModels';
import { nodePlatform } from '../teams/nodePlatform';
import { parseCommandLine, runCli } from './args';
import { SERVE } from './defaults';
import { commandPlatformSpec } from './platform';

const root = resolve(process.env.HILLMIND_DIST ?? SERVE.dist);

const USAGE = `usage: npm start [-- --help]

Serves the built app (${SERVE.dist}/) and its API on http://localhost:${SERVE.port}. Settings come from the
environment:
  PORT, HOST         where to listen (default ${SERVE.port} on ${SERVE.host}, this machine only)
  HILLMIND_HOSTS     host names the server also answers to, comma-separated (a deployment
                     behind a proxy, or a machine's LAN name); other Host headers get 403
  HILLMIND_TRUST_PROXY  the reverse proxies in front of the server, comma-separated addresses or
                     CIDR ranges (or loopback): the client is read from their X-Forwarded-For, so
                     each participant keeps its own limits (default none: the connection's address)
  HILLMIND_DIST      the built app's folder (default ${SERVE.dist})
  HILLMIND_STUDY_DB  the user studies' database (default ${DEFAULT_STUDY_DB})
  HILLMIND_MODELS    the trained models participants' episodes are checked with (default
                     ${SHIPPED_MODEL_DIR}/); the server does not start when one of them does not load
  OPENAI_BASE_URL, OPENAI_API_KEY, LLM_MODEL  the language model the page's LLM team reaches
                     through /api/llm (none: the embedded local model, after npm run llm:pull)
  LLM_CACHE          use (default): answers the model gives the same every time are kept and
                     served again; refresh: kept, never served; off
  LLM_CACHE_DIR      the decision cache's folder; the server's is its server/ (default .cache/llm)`;

runCli(async () => {
  parseCommandLine({}, USAGE);
  const trustedProxies = parseTrustedProxies(process.env.HILLMIND_TRUST_PROXY);
  if (!existsSync(resolve(root, 'index.html'))) {
    throw new Error(`${root} has no built app: run npm run build (npm start builds it for you)`);
  }
  // The server's platform, read once from this process's environment; closed when the server stops.
  const platform = nodePlatform(commandPlatformSpec());
  /** The page's language model: a server where OPENAI_BASE_URL says, else the local model. */
  const llm = platform.llm;
  const llmSettings = llmSettingsOf(platform.spec.llm);
  /** The local engine answers as many at once as it has sequences (LLM_SEQUENCES); the proxy admits that many. */
  const atOnce = llmSettings.ok && llmSettings.settings.source === 'local' ? { limits: { concurrent: llmSettings.settings.sequences } } : {};

  /** The proxy's decision cache, as LLM_CACHE and LLM_CACHE_DIR say (use, in .cache/llm/server, by default). */
  const asking = platform.spec.llm.asking;
  const cache = ProxyDecisionCache.open({ mode: asking.ok ? asking.value.cache : 'off', dir: (asking.ok ? asking.value.cacheDir : undefined) ?? defaultCacheDir() });
  const cacheStatus = cache.status();
  if (cacheStatus.problem) console.log(`decision cache off: ${cacheStatus.problem}`);
  if (cacheStatus.damagedLines) console.log(`decision cache: ${cacheStatus.damagedLines} unreadable lines set aside in its .damaged file; the rest kept`);

  /** Checks of the study's episodes, off the main thread, against the trained models HILLMIND_MODELS names. */
  const episodes = episodeCheckPool({ spec: platform.spec });

  /** The API. Mount another endpoint by adding its route here (e.g. the LLM proxy at /api/llm). */
  const routes: ApiRoutes[] = [
    healthRoute(),
    llmProxyRoutes({ access: llm, cache, ...atOnce }),
    // The pulled model and its adapter, lent to pages that run the strategist themselves.
    llmFilesRoutes({ files: lendableFiles(llmSettings) }),
    // User studies at /study/<id>, their API at /api/study and /api/admin/study (HILLMIND_STUDY_DB); episodes are read and re-simulated on a worker thread.
    studyRoutes({ root, checker: episodes, models: platform.models, dbPath: studyDbPath(process.env) }),
  ];

  const port = Number(process.env.PORT ?? SERVE.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${process.env.PORT}'`);
  const host = process.env.HOST ?? SERVE.host;
  // The names the server answers to beyond the loopback ones: the host it binds, and those a deployment behind a proxy is reached by.
  const hosts = [host, ...(process.env.HILLMIND_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean)];
  const running = await listen(createAppServer({ root, routes, hosts, trustedProxies }), port, host);
  console.log(`Hillmind is running at ${running.url}  (Ctrl+C to stop)`);
  // Load a local model now, so the page's first decisions do not wait for it.
  const availability = await llm.availability();
  if (availability.ok) {
    llm.connect().then(
      (c) => console.log(`language model: ${c.client.model} via ${c.provider}`),
      (err: Error) => console.log(`language model unavailable: ${err.message}`),
    );
  } else console.log(`language model unavailable: ${availability.reason} (${availability.help?.split('\n')[0] ?? ''})`);
  await new Promise<void>((done) => {
    const stop = () => void Promise.all([running.close(), episodes.close()]).then(() => platform.close()).then(() => cache.close()).then(() => done());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
});
