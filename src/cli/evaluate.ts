/**
 * npm run evaluate -- [--episodes N] [--seed <n>] [--workers N] [--write]
 *
 * Each trained skill against its scripted reference on its own scenario, and the games
 * (bt vs bt-scripted, bt vs flat, flat vs heuristic, flat vs random, planner vs bt, flat vs
 * bt-scripted)
 * with Wilson intervals for the wins and draws and for each team's K/D and accuracy, and
 * whether each meets its target. --write stores the figures in the model cards (models/<name>.json):
 * a card gets its skill's scenario figures and every game its policy played in.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SKILL_IDS, parseModelCard } from '../skills';
import type { NodePlatform } from '../teams/nodePlatform';
import { type EpisodePool, episodePool } from '../tournament/pool';
import {
  GAME_MATCHUPS,
  GAME_SEED,
  type GameMatchup,
  type GameResult,
  SKILL_SEED,
  type SkillComparison,
  type WinRate,
  cardEvaluation,
  compareSkill,
  describeGame,
  gameFigures,
  matchupModels,
  planGames,
  summarizeWinRate,
  winRate,
} from '../train/evaluate';
import { EPISODES_RANGE, SEED_RANGE, WORKERS_RANGE, integerOption, parseCommandLine, runCli } from './args';
import { EVALUATE } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';

const USAGE = `usage: npm run evaluate -- [--episodes ${EVALUATE.episodes}] [--seed <n>] [--workers ${EVALUATE.workers}] [--write]

  --episodes   episodes per skill comparison and per game matchup (default ${EVALUATE.episodes})
  --seed       seed of the skills' scenarios and of the games (default: ${SKILL_SEED} and ${GAME_SEED}, as the shipped cards)
  --workers    threads that play the games (default ${EVALUATE.workers}${EVALUATE.workers === 1 ? ': in this process' : ''}); the skill comparisons run here
  --write      store the figures in the model cards (models/<name>.json, field evaluation)`;

/** The matchup's games on the pool's threads: the same seeds and sides as in this process, so the same figures. */
async function winRateOnPool(pool: EpisodePool, matchup: GameMatchup, episodes: number, seed: number): Promise<WinRate> {
  const { first: a, second: b } = matchup;
  const games = planGames(a, b, episodes, seed);
  const played = await Promise.all(
    games.map(async (g) => {
      const record = await pool.play({ key: `${a}|${b}|${g.index}`, a, b, index: g.index, seed: g.seed, blue: g.blue, red: g.red });
      return { winner: record.winnerSide, agents: record.agents };
    }),
  );
  return gameFigures(a, b, games, played);
}

runCli(async () => {
  const { values } = parseCommandLine({ episodes: { type: 'string' }, seed: { type: 'string' }, workers: { type: 'string' }, write: { type: 'boolean' } }, USAGE);
  const episodes = integerOption('episodes', values.episodes, EVALUATE.episodes, EPISODES_RANGE);
  const seed = values.seed === undefined ? null : integerOption('seed', values.seed, 0, SEED_RANGE);
  const workers = integerOption('workers', values.workers, EVALUATE.workers, WORKERS_RANGE);
  await withPlatform(commandPlatformSpec(), (platform) => evaluate(platform, episodes, seed, workers, Boolean(values.write)));
});

async function evaluate(platform: NodePlatform, episodes: number, seed: number | null, workers: number, write: boolean): Promise<void> {
  const modelDir = platform.spec.models;

  const comparisons: SkillComparison[] = [];
  for (const skill of SKILL_IDS) {
    const c = await compareSkill(skill, await platform.models.load(skill), episodes, seed ?? SKILL_SEED);
    comparisons.push(c);
    const better = c.rl.lowerIsBetter ? c.rl.value <= c.scripted.value : c.rl.value >= c.scripted.value;
    console.log(`${skill.padEnd(8)} ${c.rl.measure.padEnd(48)} RL ${c.rl.value.toFixed(3).padStart(7)}  scripted ${c.scripted.value.toFixed(3).padStart(7)}  ${better ? 'RL better' : 'scripted better'}`);
  }

  // One game per thread at a time, as in this process, so --workers changes the time taken and not the figures.
  const pool = workers > 1 ? episodePool(workers, 1, platform.spec) : null;
  const games: GameResult[] = [];
  try {
    for (const matchup of GAME_MATCHUPS) {
      const gameSeed = seed ?? GAME_SEED;
      const rate = pool ? await winRateOnPool(pool, matchup, episodes, gameSeed) : await winRate(platform, matchup.first, matchup.second, episodes, gameSeed);
      const result: GameResult = { matchup, summary: summarizeWinRate(rate), models: await matchupModels(matchup, platform) };
      games.push(result);
      for (const line of describeGame(matchup, result.summary)) console.log(line);
    }
  } finally {
    await pool?.close();
  }

  if (write) {
    // What reproduces the figures: the seed only when one was given (the defaults are the code's).
    const command = `npm run evaluate -- --episodes ${episodes}${seed === null ? '' : ` --seed ${seed}`} --write`;
    const cards = [...new Set([...comparisons.map((c) => c.skill as string), ...games.flatMap((g) => g.models)])];
    for (const name of cards) {
      const path = join(modelDir, `${name}.json`);
      const card = parseModelCard(readFileSync(path, 'utf8'), path);
      const evaluation = cardEvaluation(name, comparisons.find((c) => c.skill === name), games, episodes, command);
      writeFileSync(path, `${JSON.stringify({ ...card, evaluation }, null, 2)}\n`);
    }
    console.log(`evaluation written into the cards in ${modelDir}/: ${cards.join(', ')}`);
  }
}
