/**
 * npm run train -- --skill <navigate|combat|secure|retreat|flat> [--steps N] [--seed S]
 *                  [--envs N] [--workers N] [--resume] [--out models] [--runs runs]
 *
 * Trains one policy with PPO (src/train/run.ts trainModel: checkpoints and the curve in
 * runs/<name>/, resumable with --resume; <out>/<name>.onnx with its card and curve plot at
 * the end), showing progress. Every option is checked here, before any file is read or written,
 * --out and --runs included (each must be a folder, or a path where one can be made).
 */
import { join } from 'node:path';
import { SHIPPED_MODEL_DIR } from '../skills/nodeModels';
import { TRAINING_CONFIGS } from '../train/config';
import { MODEL_NAMES, type ModelName } from '../train/scenarios';
import { freshConfig, trainModel } from '../train/run';
import { type IntegerRange, SEED_RANGE, UsageError, folderOption, integerOption, parseCommandLine, runCli } from './args';
import { TRAIN } from './defaults';
import { ProgressBar, formatDuration } from './progress';

/** Environments stepped together: each holds a world and its buffers, so thousands would only exhaust memory. */
const ENVS_RANGE: IntegerRange = { min: 1, max: 1024 };
/** Learner decisions: the longest shipped run is a few million; this is far past any that finishes. */
const STEPS_RANGE: IntegerRange = { min: 1, max: 10_000_000_000 };
/** Worker threads: each holds its share of the environments; past the machine's cores they only take turns. */
const WORKERS_RANGE: IntegerRange = { min: 1, max: 64 };

/** The shipped configs' worker counts, as the help states them. */
const SHIPPED_WORKERS = [...new Set(MODEL_NAMES.map((n) => TRAINING_CONFIGS[n].ppo.workers))].join(' or ');

const USAGE = `usage: npm run train -- --skill <${MODEL_NAMES.join('|')}> [--steps N] [--seed S] [--envs N] [--workers N] [--resume] [--out ${SHIPPED_MODEL_DIR}] [--runs ${TRAIN.runs}]

  --skill    the model to train
  --steps    learner decisions to train for, in all (default: the model's, from src/train/config.ts)
  --seed     an integer from ${SEED_RANGE.min} to ${SEED_RANGE.max} (default: the model's)
  --envs     environments stepped together, ${ENVS_RANGE.min} to ${ENVS_RANGE.max} (default: the model's)
  --workers  threads that share the environments and every gradient, ${WORKERS_RANGE.min} to ${WORKERS_RANGE.max} (default: the model's, ${SHIPPED_WORKERS});
             a run is deterministic for its seed and worker count
  --resume   continue ${TRAIN.runs}/<skill>/ from its checkpoint (--steps may grow; --seed, --envs and --workers are the run's)
  --out      where the model, its card and plot go (default ${SHIPPED_MODEL_DIR})
  --runs     where checkpoints and curves go (default ${TRAIN.runs})
  -h, --help this text`;

runCli(async () => {
  const { values } = parseCommandLine(
    {
      skill: { type: 'string' },
      steps: { type: 'string' },
      seed: { type: 'string' },
      envs: { type: 'string' },
      workers: { type: 'string' },
      resume: { type: 'boolean' },
      out: { type: 'string' },
      runs: { type: 'string' },
    },
    USAGE,
  );
  const name = values.skill as ModelName;
  if (!name || !(MODEL_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`--skill must be one of ${MODEL_NAMES.join(', ')}${values.skill ? `, got '${values.skill}'` : ''}\n\n${USAGE}`);
  }
  // Every option is checked here, before a checkpoint is read or a curve cut.
  const seedOption = values.seed === undefined ? undefined : integerOption('seed', values.seed, 0, SEED_RANGE);
  const envsOption = values.envs === undefined ? undefined : integerOption('envs', values.envs, 0, ENVS_RANGE);
  const stepsOption = values.steps === undefined ? undefined : integerOption('steps', values.steps, 0, STEPS_RANGE);
  const workersOption = values.workers === undefined ? undefined : integerOption('workers', values.workers, 0, WORKERS_RANGE);
  if (values.resume && (seedOption !== undefined || envsOption !== undefined || workersOption !== undefined)) {
    throw new UsageError("--envs, --seed and --workers cannot change on --resume: the checkpoint keeps the run's own");
  }
  const runDir = folderOption('runs', join(values.runs ?? TRAIN.runs, name));
  const outDir = folderOption('out', values.out ?? SHIPPED_MODEL_DIR);
  const options = { name, resume: values.resume === true, steps: stepsOption, seed: seedOption, envs: envsOption, workers: workersOption, runDir, outDir };
  if (!options.resume) {
    const config = freshConfig(options);
    if (config.numEnvs < config.workers) throw new UsageError(`--envs (${config.numEnvs}) must be at least --workers (${config.workers}): each worker steps its own environments`);
  }

  let bar: ProgressBar | undefined;
  const { steps, wallSeconds } = await trainModel(options, {
    now: () => performance.now(),
    progress: { bar: (total) => (bar = new ProgressBar(total, 'steps')), note: (line) => console.error(line) },
  });
  bar?.done(`trained ${name}: ${steps.toLocaleString('en-US')} steps in ${formatDuration(wallSeconds)}; wrote ${join(outDir, `${name}.onnx`)}, ${name}.json and ${name}.curve.svg (run files in ${runDir})`);
});
