/**
 * Every command answers --help and -h with its usage, and names an unknown option (exit 2);
 * the defaults its usage states are those it applies: the constants below are the ones its
 * parsing reads (src/cli/defaults.ts, or the layer's own), and a number stated as a default
 * that is not among them fails.
 */
import { DEFAULT_CACHE_MODE, EXAM_SET_PATH } from '../../src/llm';
import { DEFAULT_LOCAL_MODEL, DEFAULT_LOCAL_MODEL_DIR } from '../../src/llm/localModels';
import { SHIPPED_MODEL_DIR } from '../../src/skills/nodeModels';
import { DEFAULT_STUDY_DB } from '../../src/survey';
import { BEHAVIOUR_THRESHOLD } from '../../src/tournament/behaviour';
import { DEFAULT_EPISODES_PER_JOB } from '../../src/tournament/jobs';
import { DEFAULT_LOCK_SECONDS } from '../../src/tournament/queueWorker';
import { DEFAULT_LLM_CONCURRENCY } from '../../src/tournament/run';
import { TRAINING_CONFIGS } from '../../src/train/config';
import { GAME_SEED, SKILL_SEED } from '../../src/train/evaluate';
import { DEFAULT_TUNER, TUNE_VENV } from '../../src/tune/tuner';
import { BENCH, EVALUATE, LLM_EXAM, LLM_TUNE, PERSONAS, REPRODUCE, SERVE, TOURNAMENT, TRAIN, WORKER } from '../../src/cli/defaults';
import { describe } from 'vitest';
import { describeStatedDefaults, describeUsage } from './command';

describeUsage('match.ts', 'usage: npm run match -- --blue <team> --red <team>');
describeUsage('tournament.ts', 'usage: npm run tournament -- --teams <a,b,c>');
describeUsage('evaluate.ts', 'usage: npm run evaluate --');
describeUsage('bench.ts', 'usage: npm run bench');
describeUsage('survey.ts', 'usage: npm run survey -- <command>');
describeUsage('personas.ts', 'usage: npm run personas --');
describeUsage('reproduce.ts', 'usage: npm run reproduce --');

describe.concurrent('the defaults each usage states', () => {
  describeStatedDefaults('evaluate.ts', {
    '--episodes': [EVALUATE.episodes],
    '--seed': [SKILL_SEED, GAME_SEED],
    '--workers': [EVALUATE.workers],
  });
  describeStatedDefaults('reproduce.ts', {
    '--episodes': [REPRODUCE.episodes],
    '--out': [REPRODUCE.out],
    '--llm-concurrency': [DEFAULT_LLM_CONCURRENCY],
    '--llm-timing': [REPRODUCE.timing.kind],
    '--llm-cache': [DEFAULT_CACHE_MODE],
  });
  describeStatedDefaults('llmTune.ts', {
    '--format': [LLM_TUNE.format],
    '--size': [LLM_TUNE.size],
    '--seeds': [LLM_TUNE.seeds],
    '--steps': (['steps', 'batch', 'layers', 'rank', 'lr', 'threads'] as const).map((k) => `${k} ${DEFAULT_TUNER[k]}`),
    '--games': [LLM_TUNE.games],
    '--play-games': [LLM_TUNE.playGames],
    '--play-temperature': [LLM_TUNE.playTemperature],
    '--play-rounds': [LLM_TUNE.playRounds],
    '--play-labels': [LLM_TUNE.playLabels],
    '--python': [`${TUNE_VENV}/bin/python`],
  });
  describeStatedDefaults('personas.ts', {
    '--propose': [PERSONAS.propose],
    '--episodes': [PERSONAS.episodes],
    '--seed': [PERSONAS.seed],
    '--threshold': [BEHAVIOUR_THRESHOLD],
  });
  describeStatedDefaults('tournament.ts', {
    '--workers': [TOURNAMENT.queuedWorkers],
    '--seed': [TOURNAMENT.seed],
    '--llm-concurrency': [DEFAULT_LLM_CONCURRENCY],
    '--episodes-per-job': [DEFAULT_EPISODES_PER_JOB],
  });
  describeStatedDefaults('worker.ts', { '--concurrency': [WORKER.jobsPerThread], '--lock-seconds': [DEFAULT_LOCK_SECONDS] });
  describeStatedDefaults('bench.ts', { '--seconds': [BENCH.seconds] });
  describeStatedDefaults('llmExam.ts', { '--set': [EXAM_SET_PATH], '--out': [LLM_EXAM.out], '--size': [LLM_EXAM.size], '--seeds': [LLM_EXAM.seeds], '--rollouts': [LLM_EXAM.consistencyRollouts] });
  describeStatedDefaults('llmPull.ts', { fetches: [DEFAULT_LOCAL_MODEL, DEFAULT_LOCAL_MODEL_DIR] });
  describeStatedDefaults('serve.ts', {
    'PORT, HOST': [SERVE.port, SERVE.host],
    HILLMIND_DIST: [SERVE.dist],
    HILLMIND_STUDY_DB: [DEFAULT_STUDY_DB],
    HILLMIND_MODELS: [SHIPPED_MODEL_DIR],
  });
  describeStatedDefaults('survey.ts', { 'The database is': [DEFAULT_STUDY_DB], "The participants' address": [SERVE.port] });
  describeStatedDefaults('train.ts', {
    '--workers': [...new Set(Object.values(TRAINING_CONFIGS).map((c) => c.ppo.workers))],
    '--out': [SHIPPED_MODEL_DIR],
    '--runs': [TRAIN.runs],
  });
});
