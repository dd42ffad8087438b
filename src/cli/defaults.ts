/**
 * The defaults the commands apply themselves, one constant each: a command's parsing reads
 * it and so does its --help, so the text cannot state another value (test/cli/usage.test.ts
 * checks each help against these). Defaults a layer applies stay in that layer (the
 * tournament's episodes per job, the worker's lock, the tuner's settings...) and the
 * commands import them from there.
 */
import { join } from 'node:path';
import type { TimingMode } from '../llm';
import { STUDY } from '../tournament/reproduce';

/** npm run evaluate */
export const EVALUATE = {
  /** Episodes per skill comparison and per game matchup: the shipped cards' figures. */
  episodes: 300,
  /** Threads that play the games; 1 plays them in the command's own process. */
  workers: 1,
} as const;

/** npm run reproduce */
export const REPRODUCE = {
  /** Episodes per study matchup: the study's own. */
  episodes: STUDY.episodes,
  out: join('results', 'reproduction'),
  /** As if the model answered at once, as the study's figures were played. */
  timing: { kind: 'lockstep' } satisfies TimingMode,
} as const;

/** npm run personas */
export const PERSONAS = { propose: 12, episodes: 6, seed: 1 } as const;

/** npm run tournament (queuedWorkers: threads here with --queue, where the workers play: none). */
export const TOURNAMENT = { seed: 1, queuedWorkers: 0 } as const;

/** npm run train: where checkpoints and curves go, a folder per model. */
export const TRAIN = { runs: 'runs' } as const;

/** npm run worker: jobs in progress at once per tournament, for each thread playing them. */
export const WORKER = { jobsPerThread: 2 } as const;

/** npm run bench: seconds each figure is measured for. */
export const BENCH = { seconds: 3 } as const;

/** npm run llm:exam (size and seeds: of --build-set's set, as the shipped one was built). */
/** consistencyRollouts: the rollouts an option of the costlier planner --planner-consistency asks (the default planner's 1, eight times over). */
export const LLM_EXAM = { out: join('results', 'exam'), size: 600, seeds: 12, consistencyRollouts: 8 } as const;

/** npm run llm:tune */
export const LLM_TUNE = {
  /** Terse: the state in one-token codes, a quarter of the tokens to read per decision. */
  format: 'terse',
  /** Situations the rules teacher takes from real play, and matches per team pair it plays. */
  size: 1600,
  seeds: 40,
  /** Games per opponent for the card. */
  games: 20,
  /** Learning from play: games per opponent a round (0: none), sampling temperature, what it teaches. */
  playGames: 0,
  playTemperature: 0.7,
  playLabels: 'won',
  /** Rounds of learning from play, each from the adapter kept so far. */
  playRounds: 1,
} as const;

/** npm start (and the addresses `npm run survey` prints, which are where it listens). */
export const SERVE = {
  port: 5173,
  /** This machine only. */
  host: '127.0.0.1',
  dist: 'dist',
} as const;
