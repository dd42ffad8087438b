/**
 * The LLM proxy under a flood, for `npm run bench -- --only llm-proxy`: the proxy as
 * `npm start` mounts it, on the embedded local model, answering the page's decisions (two
 * teams asking back to back, each giving up after the strategist's 2 s as the page does)
 * alone, and then under two floods, each of 30 clients asking again as soon as they are
 * answered, or once Retry-After has passed when refused: one client (one loopback address)
 * with 30 connections sending 24 KB prompts with no token bound; then 30 clients (30
 * loopback addresses) sending prompts of about 700 tokens, within every bound. The figures:
 * the page's answers per second and the share answered, and beside them what each flood got
 * per second: answers, refusals at once (with Retry-After) and requests let in that then
 * timed out (504: work the model spent on callers that gave up). Before the floods, how many
 * participants playing llm at once the proxy serves, each asking at the strategist's rate
 * and timeout (participants.ts), 95% of their decisions answered in time. Beside them,
 * without a model: the proxy's decision cache with the page's decisions asked twice (hit rate,
 * entries, round trip of a hit and of a miss). Node only.
 */
import { setMaxListeners } from 'node:events';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RuleChatClient,
  STRATEGIST_DEFAULTS,
  type ChatRequest,
  type LlmCacheStatus,
  type LlmSpec,
  type AnswerFormat,
  buildRequest,
  cacheKey,
  fixedLlmAccess,
  type LlmAccess,
  llmSettingsOf,
  localLlmSpec,
  strategistSettingsOf,
} from '../llm';
import type { LlmBenchRow } from './strategist';
import { sampleWorlds } from './strategist';
import { LLM_PROXY_PATH, LLM_STATUS_PATH } from '../llm/proxyClient';
import { localAvailability, nodeLlmAccess } from '../llm/node';
import { teamSituation } from '../sim';
import { llmProxyRoutes } from '../server/llmProxy';
import { ProxyDecisionCache } from '../server/llmProxyCache';
import { percentile } from '../stats';
import { createAppServer, listen } from '../server/server';
import { type ParticipantsServed, participantsServed, runParticipants } from './participants';
import { runMatch } from '../match';
import { type Platform, createPlatform } from '../teams';

const FLOODERS = 30;
/** One flooding client: another loopback address than the page's. */
const ONE_CLIENT = Array.from({ length: FLOODERS }, () => '127.0.0.2');
/** Thirty flooding clients, each its own loopback address. */
const MANY_CLIENTS = Array.from({ length: FLOODERS }, (_, i) => `127.0.0.${i + 2}`);

interface Reply {
  readonly status: number;
  readonly retryAfterS: number;
  /** The proxy answered from its decision cache (`cached: true` in a 200's body). */
  readonly cached: boolean;
}

const NO_REPLY: Reply = { status: 0, retryAfterS: 0, cached: false };

function answeredFromCache(body: Buffer): boolean {
  try {
    return (JSON.parse(body.toString('utf8')) as { cached?: unknown }).cached === true;
  } catch {
    return false;
  }
}

/** POST a chat request from `localAddress`; status 0 when the caller gave up after `timeoutMs` (or the connection failed). */
function post(url: string, body: ChatRequest, localAddress: string, timeoutMs: number, stop: AbortSignal): Promise<Reply> {
  return new Promise((resolve) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = httpRequest(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': data.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve({ status, retryAfterS: Number(res.headers['retry-after'] ?? 0) || 0, cached: status === 200 && answeredFromCache(Buffer.concat(chunks)) });
      });
      res.on('error', () => resolve(NO_REPLY));
    });
    const giveUp = () => req.destroy();
    const timer = setTimeout(giveUp, timeoutMs);
    stop.addEventListener('abort', giveUp, { once: true });
    req.on('error', () => resolve(NO_REPLY));
    req.on('close', () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', giveUp);
    });
    req.end(data);
  });
}

/**
 * Flood text in the strategist's own words, so it is read in the same tokens by the pulled
 * model and the one cut to the strategist's vocabulary (about 4.6 characters a token);
 * words from outside it fall apart into characters in the cut model and would not fit.
 */
const FLOOD_TEXT = 'One agent secures the zone while the other defends its perimeter with Combat; a badly hurt agent retreats to a pickup. '.repeat(110);

/** A 24 KB prompt (two messages of 12,000 characters: the proxy's per-message limit) with no token bound. */
export function floodRequest(): ChatRequest {
  const text = FLOOD_TEXT.slice(0, 12_000);
  return { messages: [{ role: 'system', content: text }, { role: 'user', content: text }], temperature: 0.7 };
}

/** A prompt of about 700 tokens, within every bound, with no token bound on its answer. */
export function fittingFloodRequest(): ChatRequest {
  return { messages: [{ role: 'user', content: FLOOD_TEXT.slice(0, 3_600) }], temperature: 0.7 };
}

interface PageFigures {
  readonly perSecond: number;
  readonly answered: number;
  readonly asked: number;
}

/** The page's two teams asking back to back for `ms`, each request given up after the strategist's timeout. */
async function page(url: string, requests: readonly ChatRequest[], ms: number): Promise<PageFigures> {
  const stop = new AbortController();
  const deadline = performance.now() + ms;
  let answered = 0;
  let asked = 0;
  const start = performance.now();
  await Promise.all(
    [0, 1].map(async (team) => {
      for (let i = team; performance.now() < deadline; i += 2) {
        asked++;
        const reply = await post(url, requests[i % requests.length]!, '127.0.0.1', STRATEGIST_DEFAULTS.timeoutMs, stop.signal);
        if (reply.status === 200) answered++;
        // A refused page backs off as the strategist does, for the time it is told.
        else if (reply.retryAfterS > 0) await new Promise((r) => setTimeout(r, Math.min(2, reply.retryAfterS) * 1000));
      }
    }),
  );
  return { perSecond: answered / ((performance.now() - start) / 1000), answered, asked };
}

/**
 * One connection per address sending `bodies` in turn (each address from its own place in
 * them) until `stop`; what they got, by status (0: gave up at 30 s).
 */
function flood(url: string, addresses: readonly string[], bodies: readonly ChatRequest[], stop: AbortSignal): Promise<Map<number, number>> {
  const outcomes = new Map<number, number>();
  setMaxListeners(addresses.length + 8, stop);
  return Promise.all(
    addresses.map(async (address, a) => {
      for (let i = a; !stop.aborted; i++) {
        const reply = await post(url, bodies[i % bodies.length]!, address, 30_000, stop);
        if (stop.aborted) break;
        outcomes.set(reply.status, (outcomes.get(reply.status) ?? 0) + 1);
        if (reply.retryAfterS > 0 || reply.status === 0) await new Promise((r) => setTimeout(r, Math.min(5, Math.max(1, reply.retryAfterS)) * 1000));
      }
    }),
  ).then(() => outcomes);
}

/** What participants got through the proxy, and why the rest went unanswered: the count of each status (0: given up at the timeout). */
export interface ParticipantsOnProxy extends ParticipantsServed {
  readonly unanswered: ReadonlyMap<number, number>;
}

/** Which request a participant asks as its `decision`-th. */
export type ParticipantRequests = (participant: number, decision: number, participants: number) => ChatRequest;

/** Participants at once ask different positions of `requests`, as different games would. */
export const spreadOver =
  (requests: readonly ChatRequest[]): ParticipantRequests =>
  (p, k, participants) =>
    requests[(k * participants + p) % requests.length]!;

/**
 * Each participant replays a game of its own, in order, from a point of its own (a
 * participant joins a study at any time): what a study server's decision cache meets.
 */
export const replayingGames =
  (games: readonly (readonly ChatRequest[])[]): ParticipantRequests =>
  (p, k) => {
    const game = games[p % games.length]!;
    return game[(k + p * 97) % game.length]!;
  };

/**
 * `participants` pages asking the strategist's decisions through the proxy at `url` for `ms`
 * (runParticipants), each from its own loopback address (127.0.0.1 and on: another client to
 * the proxy's per-client limits), at the strategist's rate and timeout, each the requests
 * `requestOf` gives it.
 */
export async function participantsOnProxy(
  url: string,
  requestOf: ParticipantRequests,
  participants: number,
  ms: number,
  strategist: Pick<typeof STRATEGIST_DEFAULTS, 'rateHz' | 'timeoutMs'> = STRATEGIST_DEFAULTS,
): Promise<ParticipantsOnProxy> {
  const never = new AbortController().signal;
  const unanswered = new Map<number, number>();
  const served = await runParticipants({
    participants,
    rateHz: strategist.rateHz,
    timeoutMs: strategist.timeoutMs,
    ms,
    ask: async (p, k, timeoutMs) => {
      const { status } = await post(url, requestOf(p, k, participants), `127.0.0.${p + 1}`, timeoutMs, never);
      if (status !== 200) unanswered.set(status, (unanswered.get(status) ?? 0) + 1);
      return status === 200;
    },
  });
  return { ...served, unanswered };
}

/** The aim: one server's embedded model serves 20 participants playing llm at once. */
const PARTICIPANTS_TARGET = 20;
/** A participant is served when at least this share of its decisions is answered in time. */
const SERVED_SHARE = 0.95;

/** "; not answered: 3 given up, 2 got 429", or nothing where all were answered. */
function unansweredText(unanswered: ReadonlyMap<number, number>): string {
  const parts = [...unanswered].sort(([a], [b]) => a - b).map(([status, n]) => (status === 0 ? `${n} given up` : `${n} got ${status}`));
  return parts.length ? `; not answered: ${parts.join(', ')}` : '';
}

/**
 * How many participants playing llm at once the proxy serves (each 95% of its decisions
 * answered within the strategist's timeout): 1, 2, 3, 4, 6, ... until one falls short or 20.
 * On the 2-core machine with the model on one thread it is BELOW TARGET: 4 participants
 * asking situations none shares (6 got 67-71%), 6 each replaying a game of its own with the
 * decision cache on (docs/benchmarks.md). The engine serves about its decisions a second over 2.
 */
async function benchParticipants(
  serve: (participants: number, ms: number) => Promise<ParticipantsOnProxy>,
  seconds: number,
  what: string,
): Promise<LlmBenchRow[]> {
  const ms = Math.max(5, 5 * seconds) * 1000;
  const { rateHz, timeoutMs } = STRATEGIST_DEFAULTS;
  const search = await participantsServed<ParticipantsOnProxy>(
    async (participants) => {
      const served = await serve(participants, ms);
      // The next count starts from an idle model.
      await new Promise((r) => setTimeout(r, 1000));
      return served;
    },
    SERVED_SHARE,
    PARTICIPANTS_TARGET,
  );
  return [
    ...search.tried.map(({ participants, served }) => ({
      name: `proxy${what}: participants' decisions answered in ${timeoutMs / 1000} s, ${participants} at once (${served.asked}${unansweredText(served.unanswered)})`,
      value: 100 * served.share,
      unit: '%',
      target: 100 * SERVED_SHARE,
    })),
    { name: `proxy${what}: participants served at ${100 * SERVED_SHARE}% (${rateHz} decisions/s each)`, value: search.served, unit: 'participants', target: PARTICIPANTS_TARGET },
  ];
}

/** The model part of the played games' cache addresses: one model answers them all. */
const PLAYED_MODEL = 'rules';

/** Games played for the participants to replay, and the first seed of them. */
const PLAYED_GAMES = 24;
const PLAYED_SEED = 5000;

/**
 * The requests of the page's llm team in `games` games against bt on the trained skills
 * (`models`), each in order: the rule client stands in for the model (its answers steer the
 * game as a model's would), in the server's format, lockstep, so the games are the same on
 * any machine.
 */
export async function playedGames(format: AnswerFormat, models: Platform['models'], games: number): Promise<ChatRequest[][]> {
  const rules = new RuleChatClient();
  let current: ChatRequest[] = [];
  const client = {
    model: PLAYED_MODEL,
    complete: (request: ChatRequest) => {
      current.push(request);
      return rules.complete(request);
    },
  };
  const platform = createPlatform({ models, llm: fixedLlmAccess({ client, provider: 'rules', settings: strategistSettingsOf({ timing: { kind: 'lockstep' }, format }), cache: null }) });
  const recorded: ChatRequest[][] = [];
  try {
    for (let g = 0; g < games; g++) {
      current = [];
      await runMatch({ blue: 'llm', red: 'bt', seed: PLAYED_SEED + g }, { platform, record: false });
      recorded.push(current);
    }
  } finally {
    await platform.close();
  }
  return recorded;
}

/**
 * Participants as a study server meets them: each replays a game of its own through a proxy
 * whose decision cache is on, as `npm start` runs it, and empty at each count (the games are
 * the same at every count: a cache kept would know them all); a situation repeated, in one
 * game or across them, costs the model nothing.
 */
async function benchPlayedParticipants(access: LlmAccess, format: AnswerFormat, models: Platform['models'], seconds: number): Promise<LlmBenchRow[]> {
  const played = await playedGames(format, models, WARMED_GAMES);
  const games = played.slice(0, PLAYED_GAMES);
  let hits = 0;
  let misses = 0;
  const serve = async (participants: number, ms: number): Promise<ParticipantsOnProxy> => {
    const root = mkdtempSync(join(tmpdir(), 'hillmind-proxy-played-'));
    const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access, cache: ProxyDecisionCache.open({ mode: 'use', dir: root }) })] }), 0);
    try {
      const served = await participantsOnProxy(`${running.url}${LLM_PROXY_PATH}`, replayingGames(games), participants, ms);
      const { cache } = (await (await fetch(`${running.url}${LLM_STATUS_PATH}`)).json()) as { cache: LlmCacheStatus };
      hits += cache.hits;
      misses += cache.misses;
      return served;
    } finally {
      await running.close();
      rmSync(root, { recursive: true, force: true });
    }
  };
  const rows = await benchParticipants(serve, seconds, ', decision cache on, each its own game');
  const asked = games.reduce((n, g) => n + g.length, 0);
  const distinct = new Set(games.flat().map((r) => cacheKey(PLAYED_MODEL, r).material)).size;
  return [
    { name: `played games' requests (${PLAYED_GAMES} games vs bt, ${asked} requests): distinct prompts`, value: (100 * distinct) / asked, unit: '%' },
    ...warmedCacheRows(played),
    ...rows,
    { name: `proxy, decision cache on: hit rate over the counts (${hits} hits / ${misses} misses)`, value: (100 * hits) / Math.max(1, hits + misses), unit: '%' },
  ];
}

/** Games played for the warmed cache's rows (npm run llm:warm's default is 100). */
const WARMED_GAMES = 120;

/**
 * What warming the server's cache (npm run llm:warm) buys: the share of a game's decisions
 * that a cache of every game before it already knows, for games after 10, 40 and 100 before
 * them. Each game's own repeats count too, as a cache would answer them; a request is known
 * where its cache address (cacheKey) is. No model: the games are the rule client's, and a
 * prompt's answer does not matter to whether it is known.
 */
export function warmedCacheRows(games: readonly (readonly ChatRequest[])[]): LlmBenchRow[] {
  const known = new Set<string>();
  const shares: number[] = [];
  for (const game of games) {
    let hits = 0;
    for (const request of game) {
      const key = cacheKey(PLAYED_MODEL, request).material;
      if (known.has(key)) hits++;
      known.add(key);
    }
    shares.push(hits / Math.max(1, game.length));
  }
  const windows = [[10, 20], [40, 50], [100, 120]] as const;
  return windows
    .filter(([, to]) => to <= games.length)
    .map(([from, to]) => {
      const window = shares.slice(from, to);
      const mean = window.reduce((a, b) => a + b, 0) / window.length;
      return { name: `proxy cache warmed by ${from} games: decisions of games ${from + 1}-${to} known before asked`, value: 100 * mean, unit: '%' };
    });
}

/** The first world seed of the decision flood's situations, apart from the page's (0-47 and on). */
const FLOOD_SITUATIONS_SEED = 1000;

/** The page's decisions at the sample positions, as its strategist asks them in `format` (the server's, which the page reads from its status). */
export function pageRequests(firstSeed = 0, format: AnswerFormat = 'compact'): ChatRequest[] {
  return sampleWorlds(48, firstSeed).map((s) => buildRequest(teamSituation(s.world, s.team), s.current, { format, temperature: STRATEGIST_DEFAULTS.temperature }));
}

/**
 * The proxy's decision cache: the page's decisions asked twice, one after another, through a
 * proxy with a fresh cache in a temporary folder, on the rule client (no model needed), so the
 * figures are the cache's and the proxy's own: the hit rate (the second round's repeats hit),
 * what the cache holds, and the round trip of an answer from the cache and of one from the client.
 */
async function benchProxyCache(requests: readonly ChatRequest[]): Promise<LlmBenchRow[]> {
  const rules = new RuleChatClient();
  // The rule client reads its answer from the prompt alone, the same every time, as the local
  // engine's scored compact answers are; without saying so, only temperature 0 would be kept.
  const client = { model: rules.model, complete: rules.complete.bind(rules), answersAlike: () => true };
  const access = fixedLlmAccess({ client, provider: 'rules', settings: strategistSettingsOf({}), cache: null });
  const root = mkdtempSync(join(tmpdir(), 'hillmind-proxy-cache-bench-'));
  const cache = ProxyDecisionCache.open({ mode: 'use', dir: root });
  // One page asks as fast as it is answered: the rate limit is not what is measured here.
  const rate = { perSecond: 10_000, burst: 10_000 };
  const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access, cache, rate })] }), 0);
  const url = `${running.url}${LLM_PROXY_PATH}`;
  const never = new AbortController().signal;
  const hitMs: number[] = [];
  const missMs: number[] = [];
  let failed = 0;
  try {
    for (let round = 0; round < 2; round++) {
      for (const request of requests) {
        const start = performance.now();
        const reply = await post(url, request, '127.0.0.1', 30_000, never);
        const ms = performance.now() - start;
        if (reply.status !== 200) failed++;
        else (reply.cached ? hitMs : missMs).push(ms);
      }
    }
    const status = (await (await fetch(`${running.url}${LLM_STATUS_PATH}`)).json()) as { cache: LlmCacheStatus };
    const { hits, misses, entries, maxEntries, hitRate } = status.cache;
    if (failed > 0) console.log(`(${failed} of ${2 * requests.length} cache replay requests were not answered)`);
    const p50 = (values: readonly number[]) => (values.length ? percentile(values, 50) : Number.NaN);
    return [
      { name: `proxy cache: hit rate, page decisions asked twice (${hits} hits / ${misses} misses)`, value: 100 * (hitRate ?? 0), unit: '%' },
      { name: `proxy cache: entries of ${maxEntries}`, value: entries, unit: 'entries' },
      { name: `proxy cache: round trip p50, hit (${hitMs.length})`, value: p50(hitMs), unit: 'ms', lowerIsBetter: true },
      { name: `proxy cache: round trip p50, miss, rule client (${missMs.length})`, value: p50(missMs), unit: 'ms', lowerIsBetter: true },
    ];
  } finally {
    await running.close();
    await access.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `spec`: the process's language-model settings; the local model runs whatever server they
 * name. The cache's rows need no model; the others are skipped without the local one.
 */
export async function benchLlmProxy(seconds: number, spec: LlmSpec, models: Platform['models']): Promise<LlmBenchRow[]> {
  const local = localLlmSpec(spec);
  const result = llmSettingsOf(local);
  // The page asks in the server's format: the shipped adapter's terse one on the pulled model.
  const format = result.ok ? result.settings.format : 'compact';
  const requests = pageRequests(0, format);
  const cacheRows = await benchProxyCache(requests);
  if (!result.ok || result.settings.source !== 'local') {
    console.log(`(flood rows skipped: ${result.ok ? 'no local model' : result.error})`);
    return cacheRows;
  }
  const available = localAvailability(result.settings);
  if (!available.ok) {
    console.log(`(flood rows skipped: ${available.reason})`);
    return cacheRows;
  }
  const access = nodeLlmAccess({ spec: local });
  const root = mkdtempSync(join(tmpdir(), 'hillmind-proxy-bench-'));
  const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access })] }), 0);
  const url = `${running.url}${LLM_PROXY_PATH}`;
  const ms = Math.max(10, seconds * 3) * 1000;
  try {
    // The engine loads on the first request.
    await post(url, requests[0]!, '127.0.0.1', 120_000, new AbortController().signal);
    const alone = await page(url, requests, ms);
    // The participants and the decision flood ask other situations than the page's, made before the clock runs.
    const otherSituations = pageRequests(FLOOD_SITUATIONS_SEED, format);
    // What one flooding client's request takes with the model to itself, against the proxy's timeout.
    const never = new AbortController().signal;
    await post(url, fittingFloodRequest(), '127.0.0.2', 30_000, never);
    const lone = performance.now();
    const loneReply = await post(url, fittingFloodRequest(), '127.0.0.2', 30_000, never);
    const rows: LlmBenchRow[] = [
      ...cacheRows,
      { name: 'proxy: page decisions/s alone (2 teams)', value: alone.perSecond, unit: 'answers/s' },
      { name: `proxy: page decisions answered alone (${alone.asked})`, value: (100 * alone.answered) / Math.max(1, alone.asked), unit: '%' },
      { name: `proxy: one 700-token request, the model idle, round trip (${loneReply.status})`, value: performance.now() - lone, unit: 'ms', lowerIsBetter: true },
      ...(await benchParticipants((participants, ms) => participantsOnProxy(url, spreadOver(otherSituations), participants, ms), seconds, '')),
      ...(await benchPlayedParticipants(access, format, models, seconds)),
    ];
    // The third is thirty pages' worth of decisions (other situations than the measured page's, so
    // no answer is shared): what many participants playing llm at once get of one engine. There
    // the page is one participant of 31 and its share is theirs, so the page's bars (half its
    // rate alone, 90% answered) are for the other floods; this one's bar is what all of them
    // get together, against what the page got alone.
    const floods = [
      ['1 client x 30, 24 KB', ONE_CLIENT, [floodRequest()], true],
      ['30 clients, 700 tokens', MANY_CLIENTS, [fittingFloodRequest()], true],
      ['30 clients, decisions', MANY_CLIENTS, otherSituations, false],
    ] as const;
    for (const [what, addresses, body, pageBars] of floods) {
      const stopFlood = new AbortController();
      const flooded = flood(url, addresses, body, stopFlood.signal);
      // Let the flood fill the proxy before the page is measured.
      await new Promise((r) => setTimeout(r, 2000));
      const underFlood = await page(url, requests, ms);
      stopFlood.abort();
      const outcomes = await flooded;
      const count = (status: number) => outcomes.get(status) ?? 0;
      const floodSeconds = ms / 1000 + 2;
      rows.push(
        { name: `proxy: page decisions/s, flood of ${what}`, value: underFlood.perSecond, unit: 'answers/s', ...(pageBars ? { target: alone.perSecond / 2 } : {}) },
        { name: `proxy: page decisions answered, flood of ${what} (${underFlood.asked})`, value: (100 * underFlood.answered) / Math.max(1, underFlood.asked), unit: '%', ...(pageBars ? { target: 90 } : {}) },
        { name: `proxy: flood of ${what}: answered (200)`, value: count(200) / floodSeconds, unit: 'answers/s' },
        ...(pageBars
          ? []
          : [{ name: `proxy: flood of ${what}: answered, the page and the flood together`, value: underFlood.perSecond + count(200) / floodSeconds, unit: 'answers/s', target: alone.perSecond / 2 }]),
        { name: `proxy: flood of ${what}: refused at once, busy or too late (429, 503)`, value: (count(429) + count(503)) / floodSeconds, unit: 'requests/s' },
        { name: `proxy: flood of ${what}: refused, too large (413)`, value: count(413) / floodSeconds, unit: 'requests/s' },
        { name: `proxy: flood of ${what}: timed out once let in (504)`, value: count(504) / floodSeconds, unit: 'requests/s' },
        { name: `proxy: flood of ${what}: no answer in 30 s`, value: count(0) / floodSeconds, unit: 'requests/s' },
      );
      // The next measure starts from an idle model.
      await new Promise((r) => setTimeout(r, 1000));
    }
    return rows;
  } finally {
    await running.close();
    await access.close();
    rmSync(root, { recursive: true, force: true });
    const connection = await access.connect().catch(() => null);
    const engine = (connection?.client as { engine?: { dispose(): Promise<void> } } | undefined)?.engine;
    await engine?.dispose();
  }
}
