/**
 * npm run llm:warm [-- --games <n>] [--seed <s>] [--study <id>]: before a study, the
 * server's model plays games as the llm team (or a study's llm teams, in its game) and each
 * answer goes into the decision cache `npm start` serves pages from (server/llmProxyWarmup.ts),
 * so participants' situations those games met cost the model nothing. The same settings as
 * the server (LLM_CACHE_DIR, the model, its adapter and format); running it again adds
 * games (another --seed plays other ones).
 */
import { defaultCacheDir } from '../llm/node';
import { ProxyDecisionCache } from '../server/llmProxyCache';
import { studyWarmup, warmProxyCache } from '../server/llmProxyWarmup';
import { EPISODES_RANGE, SEED_RANGE, UsageError, integerOption, parseCommandLine, runCli } from './args';
import { commandPlatformSpec, withPlatform } from './platform';
import { ProgressBar } from './progress';
import type { GameConfig } from '../sim';
import type { Platform } from '../teams';
import { StudyStore, studyDbPath } from '../survey/store';

const DEFAULT_GAMES = 100;
const DEFAULT_SEED = 900_000;

const USAGE = `usage: npm run llm:warm [-- --games <n>] [--seed <s>] [--study <id>]
  fills the server's decision cache (LLM_CACHE_DIR/server) with the model's answers in
  games of the llm team against bt and flat, lockstep, as the server would answer a page.
  Stop the server first (the cache is one process's at a time); start it after, and it
  answers from what was kept. LLM_CACHE=refresh asks the model again for every decision.
  --games   games to play (default ${DEFAULT_GAMES}; in the rule client's games against bt, a cache of 100
            games knew 45% of a new game's decisions)
  --seed    the first game's seed (default ${DEFAULT_SEED}); another seed plays other games
  --study   a study of HILLMIND_STUDY_DB: its episodes' length and each of its teams that asks
            the server's model (llm variants included), in turn; default the plain llm team
            in the default game`;

runCli(async () => {
  const { values } = parseCommandLine({ games: { type: 'string' }, seed: { type: 'string' }, study: { type: 'string' } }, USAGE);
  const games = integerOption('games', values.games, DEFAULT_GAMES, { min: 1, max: EPISODES_RANGE.max });
  const seed = integerOption('seed', values.seed, DEFAULT_SEED, SEED_RANGE);
  return withPlatform(commandPlatformSpec(), async (platform) => {
    const asking = platform.spec.llm.asking;
    if (!asking.ok) throw new UsageError(asking.issues.join('; '));
    if (asking.value.cache === 'off') throw new UsageError('LLM_CACHE=off: the server keeps no decisions, so there is nothing to warm');
    const cache = ProxyDecisionCache.open({ mode: asking.value.cache, dir: asking.value.cacheDir ?? defaultCacheDir() });
    const problem = cache.status().problem;
    if (problem) throw new Error(problem);
    try {
      const study = values.study === undefined ? {} : await studyGames(values.study, platform);
      const connection = await platform.llm.connect();
      const bar = new ProgressBar(games, 'games');
      const result = await warmProxyCache(platform, connection, cache, {
        games,
        seed,
        ...study,
        onGame: (game, asked, known) => bar.update(game, `game ${game}: ${asked} decisions, ${known} already known`),
      });
      const status = cache.status();
      bar.done(`${result.games} games, ${result.asked} decisions (${result.known} already known); the cache holds ${status.entries} of ${status.maxEntries}`);
      return 0;
    } finally {
      cache.close();
    }
  });
});

/** The games a study's participants meet (studyWarmup), from HILLMIND_STUDY_DB. */
async function studyGames(id: string, platform: Platform): Promise<{ teams: string[]; config: GameConfig }> {
  const path = studyDbPath(process.env);
  const store = StudyStore.open(path);
  try {
    const study = store.getStudy(id);
    if (!study) throw new UsageError(`no study '${id}' in ${path}`);
    return await studyWarmup(study.config, platform);
  } finally {
    store.close();
  }
}
