/**
 * npm run train -- --skill <navigate|combat|secure|retreat|flat> [--steps N] [--seed S]
 *                  [--envs N] [--resume] [--out models] [--runs runs]
 *
 * Trains one policy with PPO, shows progress, checkpoints to runs/<name>/ (resume with
 * --resume: the checkpoint keeps the optimizer and the environments, so a run resumed with
 * the same --steps ends where an uninterrupted one would), writes the learning curve
 * (curve.jsonl and curve.svg there), and at the end exports <out>/<name>.onnx with its card
 * <name>.json and curve plot. Every option is checked before any file is read or written.
 */
import { join } from 'node:path';
import { appendCurve, exportModel, loadCheckpoint, readCurve, saveCheckpoint, truncateCurve, writeCurvePlot } from '../train/artifacts';
import { TRAINING_CONFIGS } from '../train/config';
import { HEURISTIC_DRIVER, VecEnv } from '../train/env';
import { type PolicyState, type PpoConfig, type TrainerState, createPolicyState, trainPpo } from '../train/ppo';
import { MODEL_NAMES, type ModelName, SCENARIOS } from '../train/scenarios';
import { type IntegerRange, SEED_RANGE, UsageError, integerOption, parseCommandLine, runCli } from './args';
import { ProgressBar, formatDuration } from './progress';

const USAGE = `usage: npm run train -- --skill <${MODEL_NAMES.join('|')}> [--steps N] [--seed S] [--envs N] [--resume] [--out models] [--runs runs]

  --skill    the model to train
  --steps    learner decisions to train for, in all (default: the model's, from src/train/config.ts)
  --seed     an integer from 0 to 4294967295 (default: the model's)
  --envs     environments stepped together, 1 to 1024 (default: the model's)
  --resume   continue runs/<skill>/ from its checkpoint (--steps may grow; --seed and --envs are the run's)
  --out      where the model, its card and plot go (default models)
  --runs     where checkpoints and curves go (default runs)
  -h, --help this text`;

/** Environments stepped together: each holds a world and its buffers, so thousands would only exhaust memory. */
const ENVS_RANGE: IntegerRange = { min: 1, max: 1024 };
/** Learner decisions: the longest shipped run is a few million; this is far past any that finishes. */
const STEPS_RANGE: IntegerRange = { min: 1, max: 10_000_000_000 };

runCli(async () => {
  const { values } = parseCommandLine(
    {
      skill: { type: 'string' },
      steps: { type: 'string' },
      seed: { type: 'string' },
      envs: { type: 'string' },
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
  const defaults = TRAINING_CONFIGS[name];
  const seedOption = values.seed === undefined ? undefined : integerOption('seed', values.seed, 0, SEED_RANGE);
  const envsOption = values.envs === undefined ? undefined : integerOption('envs', values.envs, 0, ENVS_RANGE);
  const stepsOption = values.steps === undefined ? undefined : integerOption('steps', values.steps, 0, STEPS_RANGE);
  if (values.resume && (seedOption !== undefined || envsOption !== undefined)) {
    throw new UsageError("--envs and --seed cannot change on --resume: the checkpoint keeps the run's own");
  }
  const runDir = join(values.runs ?? 'runs', name);
  const outDir = values.out ?? 'models';
  const scenario = SCENARIOS[name];

  let config: PpoConfig;
  let state: PolicyState;
  let trainer: TrainerState | undefined;
  let startSteps = 0;
  let priorSeconds = 0;
  if (values.resume) {
    const cp = loadCheckpoint(runDir);
    config = { ...cp.config, totalSteps: stepsOption ?? cp.config.totalSteps };
    state = cp.state;
    trainer = cp.trainer;
    startSteps = cp.steps;
    priorSeconds = cp.wallSeconds;
    truncateCurve(runDir, cp.steps);
    const how = trainer ? 'optimizer and episodes restored' : 'an older checkpoint: the optimizer and the episodes start afresh';
    console.error(`resuming ${name} from ${startSteps.toLocaleString('en-US')} steps (${runDir}; ${how})`);
  } else {
    config = {
      ...defaults.ppo,
      totalSteps: stepsOption ?? defaults.ppo.totalSteps,
      seed: seedOption ?? defaults.ppo.seed,
      numEnvs: envsOption ?? defaults.ppo.numEnvs,
    };
    state = createPolicyState(config);
  }

  const selfPlaySteps = Math.round((defaults.selfPlayFraction ?? 0) * config.totalSteps);
  const opponentAt = (steps: number) => (scenario.opponent === 'self' && steps < selfPlaySteps ? 'self' : HEURISTIC_DRIVER);
  // Without the trainer's state the episodes restart, seeded by the step count (a restored state brings its own seed).
  const env = new VecEnv(scenario, config.numEnvs, config.seed + startSteps, opponentAt(startSteps), { horizonSteps: config.horizonSteps });
  const bar = new ProgressBar(config.totalSteps, 'steps');
  const started = performance.now();
  const wall = () => priorSeconds + (performance.now() - started) / 1000;
  let lastCheckpoint = performance.now();
  let lastReturn: number | null = null;

  await trainPpo(
    env,
    state,
    config,
    {
      opponentFor: opponentAt,
      onUpdate(stats, _state, trainerState) {
        appendCurve(runDir, stats);
        if (stats.meanReturn !== null) lastReturn = stats.meanReturn;
        bar.update(stats.steps, `return ${lastReturn?.toFixed(2) ?? '-'}  len ${stats.meanLength?.toFixed(0) ?? '-'}`);
        if (performance.now() - lastCheckpoint > 60_000 || stats.steps >= config.totalSteps) {
          saveCheckpoint(runDir, { name, steps: stats.steps, wallSeconds: wall(), config, state, trainer: trainerState() });
          writeCurvePlot(join(runDir, 'curve.svg'), `${name}: learning curve`, readCurve(runDir));
          lastCheckpoint = performance.now();
        }
      },
    },
    startSteps,
    trainer,
  );

  const curve = readCurve(runDir);
  const steps = curve.at(-1)?.steps ?? startSteps;
  exportModel(outDir, state, {
    name,
    kind: name === 'flat' ? 'flat' : 'skill',
    scenario: name,
    opponent: scenario.opponent === 'self' ? `self-play for ${selfPlaySteps} steps, then heuristic` : 'heuristic',
    steps,
    wallSeconds: wall(),
    config,
    curve,
    evaluation: null,
  });
  bar.done(`trained ${name}: ${steps.toLocaleString('en-US')} steps in ${formatDuration(wall())}; wrote ${join(outDir, `${name}.onnx`)}, ${name}.json and ${name}.curve.svg (run files in ${runDir})`);
});
