/**
 * npm run train -- --skill <navigate|combat|secure|retreat|flat> [--steps N] [--seed S]
 *                  [--envs N] [--workers N] [--resume] [--out models] [--runs runs]
 *
 * Trains one policy with PPO, shows progress, checkpoints to runs/<name>/ (resume with
 * --resume: the checkpoint keeps the optimizer and the environments, so a run resumed with
 * the same --steps ends where an uninterrupted one would), writes the learning curve
 * (curve.jsonl and curve.svg there), and at the end exports <out>/<name>.onnx with its card
 * <name>.json and curve plot. Every option is checked before any file is read or written.
 */
import { join } from 'node:path';
import { appendCurve, exportModel, loadCheckpoint, readCurve, saveCheckpoint, truncateCurve, writeCurvePlot } from '../train/artifacts';
import { SKILL_IDS, type SkillId } from '../skills';
import { readTrainedSkills } from '../train/trainedSkills';
import { type LeagueSettings, PPO_DEFAULTS, TRAINING_CONFIGS, describePhases, playsTrainedSkills, teachingTeacher, trainingPlan } from '../train/config';
import { type LeagueState, leagueStandings } from '../train/league';
import { describeOpponents } from '../train/opponents';
import { type PolicyState, type PpoConfig, createPolicyState } from '../train/ppo';
import { MODEL_NAMES, type ModelName, SCENARIOS } from '../train/scenarios';
import { type TrainerState, type TrainingPlan, trainPpo } from '../train/trainer';
import { type IntegerRange, SEED_RANGE, UsageError, integerOption, parseCommandLine, runCli } from './args';
import { ProgressBar, formatDuration } from './progress';

const USAGE = `usage: npm run train -- --skill <${MODEL_NAMES.join('|')}> [--steps N] [--seed S] [--envs N] [--workers N] [--resume] [--out models] [--runs runs]

  --skill    the model to train
  --steps    learner decisions to train for, in all (default: the model's, from src/train/config.ts)
  --seed     an integer from 0 to 4294967295 (default: the model's)
  --envs     environments stepped together, 1 to 1024 (default: the model's)
  --workers  threads that share the environments and every gradient, 1 to 64 (default: the model's, 2);
             a run is deterministic for its seed and worker count
  --resume   continue runs/<skill>/ from its checkpoint (--steps may grow; --seed, --envs and --workers are the run's)
  --out      where the model, its card and plot go (default models)
  --runs     where checkpoints and curves go (default runs)
  -h, --help this text`;

/** Environments stepped together: each holds a world and its buffers, so thousands would only exhaust memory. */
const ENVS_RANGE: IntegerRange = { min: 1, max: 1024 };
/** Learner decisions: the longest shipped run is a few million; this is far past any that finishes. */
const STEPS_RANGE: IntegerRange = { min: 1, max: 10_000_000_000 };
/** Worker threads: each holds its share of the environments; past the machine's cores they only take turns. */
const WORKERS_RANGE: IntegerRange = { min: 1, max: 64 };

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
  const defaults = TRAINING_CONFIGS[name];
  const seedOption = values.seed === undefined ? undefined : integerOption('seed', values.seed, 0, SEED_RANGE);
  const envsOption = values.envs === undefined ? undefined : integerOption('envs', values.envs, 0, ENVS_RANGE);
  const stepsOption = values.steps === undefined ? undefined : integerOption('steps', values.steps, 0, STEPS_RANGE);
  const workersOption = values.workers === undefined ? undefined : integerOption('workers', values.workers, 0, WORKERS_RANGE);
  if (values.resume && (seedOption !== undefined || envsOption !== undefined || workersOption !== undefined)) {
    throw new UsageError("--envs, --seed and --workers cannot change on --resume: the checkpoint keeps the run's own");
  }
  const runDir = join(values.runs ?? 'runs', name);
  const outDir = values.out ?? 'models';

  let config: PpoConfig;
  let state: PolicyState;
  let trainer: TrainerState | undefined;
  let startSteps = 0;
  let priorSeconds = 0;
  let checkpointTeacher: string | null | undefined;
  if (values.resume) {
    const cp = loadCheckpoint(runDir);
    checkpointTeacher = cp.teacher;
    // Settings a checkpoint predates take the values it was trained with: one worker, no teacher.
    const saved: Partial<PpoConfig> = cp.config;
    config = { ...PPO_DEFAULTS, workers: 1, teacherCoef: 0, ...saved, seed: cp.config.seed, totalSteps: stepsOption ?? cp.config.totalSteps };
    state = cp.state;
    // A checkpoint from before the trainer ran on workers keeps no per-worker state: start those afresh.
    trainer = cp.trainer && Array.isArray(cp.trainer.shards) ? cp.trainer : undefined;
    startSteps = cp.steps;
    priorSeconds = cp.wallSeconds;
  } else {
    config = {
      ...defaults.ppo,
      totalSteps: stepsOption ?? defaults.ppo.totalSteps,
      seed: seedOption ?? defaults.ppo.seed,
      numEnvs: envsOption ?? defaults.ppo.numEnvs,
      workers: workersOption ?? defaults.ppo.workers,
    };
    if (config.numEnvs < config.workers) throw new UsageError(`--envs (${config.numEnvs}) must be at least --workers (${config.workers}): each worker steps its own environments`);
    state = createPolicyState(config);
  }

  // bt, as an opponent or the teacher, plays the skills in the folder this run writes to, as they are now.
  const skills = playsTrainedSkills({ ...defaults, ppo: config }) ? readSkillsFor(name, outDir) : undefined;
  const plan = trainingPlan(name, config, skills?.networks);
  // Who teaches, as the card and the checkpoint name it: a resumed run keeps its teacher.
  const teacher = describeTeacherName(plan, skills?.fingerprints);
  if (checkpointTeacher !== undefined && checkpointTeacher !== teacher) {
    throw new Error(
      `the run in ${runDir} was taught by ${checkpointTeacher ?? 'no teacher'}, and resuming it now would be taught by ${teacher ?? 'no teacher'}: ` +
        `restore what taught it${skills ? ` (the skills in ${outDir})` : ''}, or train afresh without --resume`,
    );
  }
  if (values.resume) {
    truncateCurve(runDir, startSteps);
    const how = trainer ? 'optimizer and episodes restored' : 'an older checkpoint: the optimizer and the episodes start afresh';
    console.error(`resuming ${name} from ${startSteps.toLocaleString('en-US')} steps (${runDir}; ${how})`);
  }
  const bar = new ProgressBar(config.totalSteps, 'steps');
  const started = performance.now();
  const wall = () => priorSeconds + (performance.now() - started) / 1000;
  let lastCheckpoint = performance.now();
  let lastReturn: number | null = null;

  await trainPpo(
    plan,
    state,
    {
      async onUpdate(stats, _state, trainerState) {
        appendCurve(runDir, stats);
        if (stats.meanReturn !== null) lastReturn = stats.meanReturn;
        bar.update(stats.steps, `return ${lastReturn?.toFixed(2) ?? '-'}  len ${stats.meanLength?.toFixed(0) ?? '-'}${stats.teacherCoef > 0 ? `  teacher ${stats.teacherCoef.toFixed(2)}` : ''}`);
        if (performance.now() - lastCheckpoint > 60_000 || stats.steps >= config.totalSteps) {
          const trainerNow = trainerState();
          saveCheckpoint(runDir, { name, steps: stats.steps, wallSeconds: wall(), config, state, trainer: trainerNow, teacher });
          if (trainerNow.league) console.error(`\n${describeStandings(plan, trainerNow.league)}`);
          await writeCurvePlot(join(runDir, 'curve.svg'), `${name}: learning curve`, readCurve(runDir));
          lastCheckpoint = performance.now();
        }
      },
    },
    startSteps,
    trainer,
  );

  const curve = readCurve(runDir);
  const steps = curve.at(-1)?.steps ?? startSteps;
  await exportModel(outDir, state, {
    name,
    kind: name === 'flat' ? 'flat' : 'skill',
    scenario: name,
    opponent: describePhases(plan.phases, config.totalSteps, describeOpponents),
    reward: describeReward(name, plan, config.totalSteps),
    teacher: teacher && describeTeacherSchedule(teacher, config),
    steps,
    wallSeconds: wall(),
    config,
    curve,
    evaluation: null,
  });
  bar.done(`trained ${name}: ${steps.toLocaleString('en-US')} steps in ${formatDuration(wall())}; wrote ${join(outDir, `${name}.onnx`)}, ${name}.json and ${name}.curve.svg (run files in ${runDir})`);
});

/** The reward as a card's sentence: its terms where the scenario names them, and the shot cost. */
function describeReward(name: ModelName, plan: TrainingPlan, totalSteps: number): string {
  const terms = SCENARIOS[name].rewardTerms;
  const base = terms ? `the ${name} scenario's reward (${terms})` : `the ${name} scenario's reward`;
  if (!plan.shotCost) return base;
  const ramp = plan.shotCostRamp ? ` (rising linearly from 0 over the first ${Math.round(plan.shotCostRamp * totalSteps).toLocaleString('en-US')} steps)` : '';
  return `${base}, less ${plan.shotCost} per shot${ramp} (hits over shots)`;
}

/** The league's members the learner meets most, with its score against each: one line for the log. */
function describeStandings(plan: TrainingPlan, league: LeagueState): string {
  const phase = plan.phases.find((p) => p.opponents !== 'self' && 'league' in p.opponents)!;
  const settings = (phase.opponents as { league: LeagueSettings }).league;
  const top = leagueStandings(settings, league)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, 6)
    .map((s) => `${s.member} ${(100 * s.weight).toFixed(0)}% (score ${s.score === null ? '-' : s.score.toFixed(2)})`);
  return `league (${league.snapshots.length} snapshots), most drawn: ${top.join(', ')}`;
}

/**
 * The trained skills in `outDir` that bt plays, or an error that says where a run looks for
 * them and how to put them there (before anything of the run is written).
 */
function readSkillsFor(name: ModelName, outDir: string): ReturnType<typeof readTrainedSkills> {
  try {
    return readTrainedSkills(outDir);
  } catch (error) {
    const files = `${SKILL_IDS.join(', ')} (.onnx and .json)`;
    throw new Error(
      `${name} plays bt, the tree over the trained skills, which reads them from the folder the run writes to (--out ${outDir}): ` +
        `train the skills there first, or copy ${files} from models/ into it. ${(error as Error).message}`,
    );
  }
}

/** Who teaches (null: nobody), as a card names it: bt with the fingerprints of the skill files it plays. */
function describeTeacherName(plan: TrainingPlan, fingerprints?: Readonly<Record<SkillId, string>>): string | null {
  const teacher = teachingTeacher(plan.teacher, plan.config);
  if (!teacher) return null;
  if (teacher === 'heuristic') return 'the heuristic team';
  if (teacher === 'bt-scripted') return 'the tree over the scripted skills (bt-scripted)';
  if (teacher === 'bt') return `the tree over the trained skills (bt: ${SKILL_IDS.map((id) => `${id} ${fingerprints?.[id]}`).join(', ')})`;
  return `the scripted ${teacher} skill`;
}

/** The teacher as a card's sentence: whose actions, and the weight's schedule. */
function describeTeacherSchedule(who: string, config: PpoConfig): string {
  if (config.teacherFloor >= 1) return `${who}: weight ${config.teacherCoef} throughout (kickstarting)`;
  const until = Math.round(config.teacherFraction * config.totalSteps).toLocaleString('en-US');
  return `${who}: weight ${config.teacherCoef} decaying to ${config.teacherCoef * config.teacherFloor} by ${until} steps (kickstarting)`;
}
