/**
 * One training run of a model (npm run train parses its options and calls
 * {@link trainModel}): a fresh run from the model's settings or one resumed from its
 * checkpoint (the checkpoint keeps the optimizer and the environments, so a run resumed with
 * the same steps ends where an uninterrupted one would), PPO with checkpoints and the
 * learning curve (curve.jsonl and curve.svg) in the run's folder, and at the end the model
 * exported with its card and curve plot. The clock and what the person sees are passed in.
 */
import { join } from 'node:path';
import { num, pct } from '../report/format';
import { SKILL_IDS, type SkillId } from '../skills';
import { appendCurve, exportModel, loadCheckpoint, readCurve, saveCheckpoint, truncateCurve, writeCurvePlot } from './artifacts';
import { type LeagueSettings, PPO_DEFAULTS, TRAINING_CONFIGS, describePhases, playsTrainedSkills, teachingTeacher, trainingPlan } from './config';
import { type LeagueState, leagueStandings } from './league';
import { describeOpponents } from './opponents';
import { type PolicyState, type PpoConfig, createPolicyState } from './ppo';
import { type ModelName, SCENARIOS } from './scenarios';
import { type TrainerState, type TrainingPlan, trainPpo } from './trainer';
import { readTrainedSkills } from './trainedSkills';

/** How often a long run checkpoints and redraws its curve, in milliseconds of the run's clock. */
const CHECKPOINT_EVERY_MS = 60_000;

export interface TrainRunOptions {
  readonly name: ModelName;
  /** Continue the run in runDir from its checkpoint; seed, envs and workers are then the run's own. */
  readonly resume: boolean;
  /** Learner decisions in all; the model's (or the checkpoint's) when absent. */
  readonly steps?: number;
  readonly seed?: number;
  readonly envs?: number;
  readonly workers?: number;
  /** Checkpoints and the curve. */
  readonly runDir: string;
  /** The model, its card and its plot. */
  readonly outDir: string;
}

export interface TrainRunProgress {
  /** A bar over the run's steps. */
  bar(total: number): { update(done: number, details: string): void; done(message: string): void };
  /** A line beside the bar (resuming, the league's standings). */
  note(line: string): void;
}

export interface TrainRunDependencies {
  /** Milliseconds on a clock that only goes forward: the run's wall time and its checkpoint interval. */
  now(): number;
  readonly progress: TrainRunProgress;
}

export interface TrainRunResult {
  readonly steps: number;
  readonly wallSeconds: number;
}

/** Train (or resume) one model and export it; every setting was checked by the caller. */
export async function trainModel(options: TrainRunOptions, deps: TrainRunDependencies): Promise<TrainRunResult> {
  const { name, runDir, outDir } = options;
  const { progress } = deps;
  const defaults = TRAINING_CONFIGS[name];
  let config: PpoConfig;
  let state: PolicyState;
  let trainer: TrainerState | undefined;
  let startSteps = 0;
  let priorSeconds = 0;
  let checkpointTeacher: string | null | undefined;
  if (options.resume) {
    const cp = loadCheckpoint(runDir);
    checkpointTeacher = cp.teacher;
    // Settings a checkpoint predates take the values it was trained with: one worker, no teacher.
    const saved: Partial<PpoConfig> = cp.config;
    config = { ...PPO_DEFAULTS, workers: 1, teacherCoef: 0, ...saved, seed: cp.config.seed, totalSteps: options.steps ?? cp.config.totalSteps };
    state = cp.state;
    // A checkpoint from before the trainer ran on workers keeps no per-worker state: start those afresh.
    trainer = cp.trainer && Array.isArray(cp.trainer.shards) ? cp.trainer : undefined;
    startSteps = cp.steps;
    priorSeconds = cp.wallSeconds;
  } else {
    config = freshConfig(options);
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
  if (options.resume) {
    truncateCurve(runDir, startSteps);
    const how = trainer ? 'optimizer and episodes restored' : 'an older checkpoint: the optimizer and the episodes start afresh';
    progress.note(`resuming ${name} from ${startSteps.toLocaleString('en-US')} steps (${runDir}; ${how})`);
  }
  const bar = progress.bar(config.totalSteps);
  const started = deps.now();
  const wall = () => priorSeconds + (deps.now() - started) / 1000;
  let lastCheckpoint = deps.now();
  let lastReturn: number | null = null;

  await trainPpo(
    plan,
    state,
    {
      async onUpdate(stats, _state, trainerState) {
        appendCurve(runDir, stats);
        if (stats.meanReturn !== null) lastReturn = stats.meanReturn;
        bar.update(stats.steps, `return ${lastReturn?.toFixed(2) ?? '-'}  len ${stats.meanLength?.toFixed(0) ?? '-'}${stats.teacherCoef > 0 ? `  teacher ${stats.teacherCoef.toFixed(2)}` : ''}`);
        if (deps.now() - lastCheckpoint > CHECKPOINT_EVERY_MS || stats.steps >= config.totalSteps) {
          const trainerNow = trainerState();
          saveCheckpoint(runDir, { name, steps: stats.steps, wallSeconds: wall(), config, state, trainer: trainerNow, teacher });
          if (trainerNow.league) progress.note(`\n${describeStandings(plan, trainerNow.league)}`);
          await writeCurvePlot(join(runDir, 'curve.svg'), `${name}: learning curve`, readCurve(runDir));
          lastCheckpoint = deps.now();
        }
      },
    },
    startSteps,
    trainer,
  );

  const curve = readCurve(runDir);
  const steps = curve.at(-1)?.steps ?? startSteps;
  // Read once: the card and the caller's summary give the same time.
  const wallSeconds = wall();
  await exportModel(outDir, state, {
    name,
    kind: name === 'flat' ? 'flat' : 'skill',
    scenario: name,
    opponent: describePhases(plan.phases, config.totalSteps, describeOpponents),
    reward: describeReward(name, plan, config.totalSteps),
    teacher: teacher && describeTeacherSchedule(teacher, config),
    steps,
    wallSeconds,
    config,
    curve,
    evaluation: null,
  });
  return { steps, wallSeconds };
}

/** A fresh run's settings: the model's, with the options given over them. */
export function freshConfig(options: Pick<TrainRunOptions, 'name' | 'steps' | 'seed' | 'envs' | 'workers'>): PpoConfig {
  const { ppo } = TRAINING_CONFIGS[options.name];
  return {
    ...ppo,
    totalSteps: options.steps ?? ppo.totalSteps,
    seed: options.seed ?? ppo.seed,
    numEnvs: options.envs ?? ppo.numEnvs,
    workers: options.workers ?? ppo.workers,
  };
}

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
    .map((s) => `${s.member} ${pct(s.weight, 0)} (score ${num(s.score)})`);
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
