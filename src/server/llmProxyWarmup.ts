/**
 * Warming the proxy's decision cache before a study (`npm run llm:warm`): the server's model
 * plays games as the llm team, lockstep, and every answer it gives goes into the cache the
 * server reads (llmProxyCache.ts), under the same address a page's request has (the same
 * prompt, format, temperature and bounds). A study server then answers from the cache every
 * situation those games met, without the model. The answers are the model's own, given as
 * they would be at a page's request (the cache keeps only answers the model gives the same
 * every time), so warming changes what the server can serve, never what it answers.
 *
 * How much it serves: in games of the llm team against bt, the rule client in the model's
 * place, a cache of every game before knew 34% of games 11-20's decisions, 36% of games
 * 41-50's and 45% of games 101-120's (about 18,000 prompts, near the cache's 20,000),
 * against 17-23% repeats within one game (`npm run bench -- --only llm-proxy`). Node only.
 */
import { runMatch } from '../match';
import { type ChatClient, type ChatRequest, type ChatResponse, type LlmConnection, answersAlike, buildRequest, fixedLlmAccess, pageStrategistSettings } from '../llm';
import { type GameConfig, createWorld, teamSituation } from '../sim';
import { createPlatform, type Platform, resolveTeam } from '../teams';
import { type StudyConfig, studyGameConfig, teamsInPlay } from '../survey/config';
import { llmStatus } from './llmProxy';
import type { ProxyDecisionCache } from './llmProxyCache';

/** Whom the llm team plays while it warms the cache: the study's AI teams, in turn. */
export const WARMUP_OPPONENTS = ['bt', 'flat'] as const;

export interface WarmupOptions {
  readonly games: number;
  /** The llm teams to play, in turn (a study's variants); default the plain `llm`. */
  readonly teams?: readonly string[];
  /** The game they play (a study's episode length is in the system prompt); default DEFAULT_CONFIG. */
  readonly config?: GameConfig;
  /** The first game's seed; game i plays seed + i. */
  readonly seed: number;
  /** Told after each game: its number (from 1), the decisions asked, and how many the cache knew. */
  readonly onGame?: (game: number, asked: number, known: number) => void;
}

export interface WarmupResult {
  readonly games: number;
  readonly asked: number;
  /** Decisions the cache already knew (from an earlier game or run). */
  readonly known: number;
}

/**
 * The settings a page plays with on this server (the status it reads, as the page reads it:
 * requests built from them have a page's addresses), lockstep, so no decision is missed
 * while the model thinks. Throws where the cache would keep none of the model's answers.
 */
export function warmupSettings(connection: LlmConnection) {
  const status = llmStatus({ ok: true, model: connection.client.model, provider: connection.provider, settings: connection.settings });
  const page = pageStrategistSettings(status, { kind: 'lockstep' });
  const sample = buildRequest(teamSituation(createWorld(0), 0), [], { format: page.format, temperature: page.temperature });
  if (!answersAlike(connection.client, sample)) {
    throw new Error(
      `the model's answers in the ${page.format} format at temperature ${page.temperature} are samples, which the server's cache never keeps, so warming would keep nothing: ` +
        'set LLM_TEMPERATURE=0, or run the local model in its compact or terse format',
    );
  }
  return { ...page, timeoutMs: Math.max(page.timeoutMs, 60_000) };
}

/**
 * Play `options.games` lockstep games of the llm teams on `connection`'s model (teams,
 * sides and opponents in turn) on `platform`'s skills, each decision answered from `cache`
 * where it knows it, else by the model and kept.
 */
export async function warmProxyCache(platform: Pick<Platform, 'models' | 'clock'>, connection: LlmConnection, cache: ProxyDecisionCache, options: WarmupOptions): Promise<WarmupResult> {
  let asked = 0;
  let known = 0;
  const client: ChatClient = {
    model: connection.client.model,
    complete: async (request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> => {
      asked++;
      const kept = cache.answer(connection, request);
      if (kept) {
        known++;
        return kept;
      }
      const start = platform.clock.now();
      const response = await connection.client.complete(request, signal);
      cache.keep(connection, request, response, platform.clock.now() - start);
      return response;
    },
  };
  const settings = warmupSettings(connection);
  const warming = createPlatform({ models: platform.models, clock: platform.clock, llm: fixedLlmAccess({ client, provider: connection.provider, settings, cache: null }) });
  for (let game = 0; game < options.games; game++) {
    const before = { asked, known };
    const teams = options.teams ?? ['llm'];
    const team = teams[game % teams.length]!;
    const opponent = WARMUP_OPPONENTS[Math.floor(game / 2) % WARMUP_OPPONENTS.length]!;
    const [blue, red] = game % 2 === 0 ? [team, opponent] : [opponent, team];
    await runMatch({ blue, red, seed: options.seed + game, ...(options.config ? { config: options.config } : {}) }, { platform: warming, record: false });
    options.onGame?.(game + 1, asked - before.asked, known - before.known);
  }
  return { games: options.games, asked, known };
}

/**
 * What a study's participants meet: its game (the episode length the system prompt states)
 * and each of its teams in play that asks the server's own model (llm variants included;
 * a variant naming another model is not this server's to warm). Throws where none does.
 */
export async function studyWarmup(config: StudyConfig, platform: Platform): Promise<{ teams: string[]; config: GameConfig }> {
  const teams: string[] = [];
  for (const team of teamsInPlay(config)) {
    const { entry, variant } = resolveTeam(team);
    const needs = await entry.needs(platform, variant);
    if (needs.languageModel && !needs.llm) teams.push(variant.name);
  }
  if (teams.length === 0) throw new Error(`the study has no team that asks the server's model (${teamsInPlay(config).join(', ')}): there is nothing to warm`);
  return { teams, config: studyGameConfig(config.episodeSeconds) };
}
