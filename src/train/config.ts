/**
 * Hyper-parameters: what each one means (PpoConfig, every field in one place, as CleanRL's
 * `Args`), the values every shipped model shares (PPO_DEFAULTS) and one config per model.
 *
 * The study trained every skill with PPO (batch 64, buffer 1,200, lr 3e-4 decaying,
 * entropy 0.001, clip 0.2, lambda 0.99, gamma 0.99, 3 epochs, 2x128 hidden, horizon 200)
 * for 10M steps, and flat RL for 30M. Flat now takes the study's network, step size and
 * lambda, and the fighting skills' teacher with bt, the tree over the trained skills, as
 * teacher (FLAT_TRAINING below says why). The skills differ where this CPU trainer measured better:
 * 2x64 hidden units (about 3x cheaper per update than 2x128, which
 * `npm run bench -- --only training` prints side by side, and as good on these 20-input
 * tasks), minibatch 256 of a 4,096-sample buffer (larger
 * batches use the hand-written kernels 3-4x better per sample), lambda 0.95, a teacher term
 * for the skills (kickstarting from their scripted twins) and opponents beyond the heuristic
 * team. The step budgets are the study's.
 *
 * Units: a step is one learner's decision, every 4 ticks (0.08 s of play at 12.5 Hz); an
 * environment step with two learners counts two.
 *
 * The types of a run's plan (TrainingPlan, its opponents and league by name) live here too,
 * so the files that train read their settings from this one and it imports none of them.
 */
import type { SkillId } from '../skills';
import type { PolicyNetworkWeights } from '../skills/policyNetwork';
import type { ModelName } from './scenarios';

/** PPO's settings. Defaults are PPO_DEFAULTS' values (seed and totalSteps: per model). */
export interface PpoConfig {
  /**
   * The run's seed: initial weights, action sampling, minibatch order and every episode's
   * start. An integer from 0 to 2^32 - 1. Default per model (1 to 5). Why: a model card's
   * reproduce command retrains the same model.
   */
  readonly seed: number;
  /**
   * Learner steps to train for, in all (a resumed run may raise it). Default per model:
   * 10M for navigate and retreat, 20M for combat and secure, 30M for flat. Why: at least
   * the study's budget; the fighting skills measured better with more (SKILL_TRAINING).
   */
  readonly totalSteps: number;
  /**
   * Environments stepped together. Default 32. Why: with rolloutSteps 64 and two learners
   * each, a 4,096-sample buffer of many independent episodes per update.
   */
  readonly numEnvs: number;
  /**
   * Steps per environment per update; the buffer is numEnvs x learners x rolloutSteps.
   * Default 64 (5.1 s of play). Why: long enough for GAE to see rewards a few seconds off,
   * short enough to update often; the value bootstraps the rest.
   */
  readonly rolloutSteps: number;
  /**
   * Hidden layer widths of the policy and the value network (tanh, separate networks).
   * Default [64, 64]. Why: 3x cheaper than the study's 2x128 and as good on 20 inputs (above).
   */
  readonly hidden: readonly number[];
  /**
   * Adam's step size at the start. Default 1e-3 (the study: 3e-4). Why: it goes with
   * minibatches 4x the study's, whose averaged gradients are less noisy and bear a larger step.
   */
  readonly learningRate: number;
  /**
   * Decay the step size linearly with the steps done, to 5% of learningRate at totalSteps
   * (global, so a resumed run keeps the schedule). Default true. Why: the study decayed it;
   * late updates refine instead of undoing.
   */
  readonly annealLearningRate: boolean;
  /**
   * Discount per step. Default 0.99 (a horizon of about 100 steps, 8 s). Why: the study's
   * value; 8 s is the sole occupation that wins a game.
   */
  readonly gamma: number;
  /**
   * GAE's lambda: how far advantages look ahead before trusting the value (0: one step,
   * 1: the whole rollout). Default 0.95. Why: measured better here than the study's 0.99.
   */
  readonly gaeLambda: number;
  /** Passes over each buffer. Default 3. Why: the study's; each sample serves three gradient steps. */
  readonly epochs: number;
  /**
   * Samples per gradient step (the buffer is cut into equal minibatches of at most this).
   * Default 256. Why: the hand-written kernels do 3-4x more per sample at this size than at the study's 64.
   */
  readonly minibatchSize: number;
  /** PPO's clip range: how far the new policy's probability ratio may move per update. Default 0.2. Why: the study's and CleanRL's. */
  readonly clip: number;
  /**
   * Weight of the entropy bonus in the policy loss (it keeps the policy exploring). Default
   * 0.001. Why: the study's.
   */
  readonly entropyCoef: number;
  /** Largest global L2 norm of a gradient before Adam (bigger ones are scaled down). Default 0.5. Why: CleanRL's; one bad minibatch cannot throw the weights far. */
  readonly maxGradNorm: number;
  /**
   * Starting log standard deviation of move, turn and strafe (learned from there). Default
   * -0.5 (sigma 0.61 in [-1, 1] action units). Why: explores without clamping most samples at
   * +-1, as sigma 1 would.
   */
  readonly initLogStd: number;
  /**
   * Normalised observations are clipped to +-obsClip standard deviations. Default 5. Why:
   * a rare extreme input cannot swamp the first layer; the ONNX model applies the same clip.
   */
  readonly obsClip: number;
  /** Steps before an episode is truncated (the value bootstraps past it). Default 200 (16 s). Why: the study's horizon. */
  readonly horizonSteps: number;
  /**
   * Worker threads that each step numEnvs / workers environments and compute their share
   * of every minibatch's gradient (summed across workers, so all keep the same weights).
   * Default 2. Why: both cores of the machine the budget is set for; a run is deterministic
   * for its seed and worker count, so the count is part of the run, not of the machine.
   */
  readonly workers: number;
  /**
   * Weight of the teacher term at the start (kickstarting, Schmitt et al. 2018): the policy's
   * means are pulled towards the teacher's actions on the states the learner visits (squared
   * error) and its dash/fire logits towards the teacher's choices (cross-entropy). 0: no
   * teacher. Default 0; the skills use 1 with their scripted twin as teacher. Why: PPO alone
   * found spraying shots a local optimum (107 shots per episode at 37% accuracy vs the
   * script's 42 at 93%); starting from the teacher's aim, PPO refines instead of searching.
   */
  readonly teacherCoef: number;
  /**
   * Share of totalSteps over which the teacher's weight decays linearly to teacherFloor x
   * teacherCoef. Default 0.5. Why: the second half is PPO on the game's rewards, free to
   * improve on the teacher.
   */
  readonly teacherFraction: number;
  /** The teacher's weight that remains after teacherFraction, as a share of teacherCoef. Default 0. */
  readonly teacherFloor: number;
}

/** The values every shipped model shares (documented in PpoConfig). */
export const PPO_DEFAULTS: Omit<PpoConfig, 'seed' | 'totalSteps'> = {
  numEnvs: 32,
  rolloutSteps: 64,
  hidden: [64, 64],
  learningRate: 1e-3,
  annealLearningRate: true,
  gamma: 0.99,
  gaeLambda: 0.95,
  epochs: 3,
  minibatchSize: 256,
  clip: 0.2,
  entropyCoef: 0.001,
  maxGradNorm: 0.5,
  initLogStd: -0.5,
  obsClip: 5,
  horizonSteps: 200,
  workers: 2,
  teacherCoef: 0,
  teacherFraction: 0.5,
  teacherFloor: 0,
};

/**
 * Who the learners play in training, by name, so a training config (and a worker thread
 * given one) says it as data: the heuristic team (the study's only training opponent),
 * bt-scripted (the behavior tree over the scripted skills, the team a trained skill must
 * match inside bt) or bt (the tree over the trained skills, the product's own team: the
 * plan carries their networks, read by the entry point, as trainedSkills). opponents.ts
 * builds each.
 */
export const OPPONENT_NAMES = ['heuristic', 'bt-scripted', 'bt'] as const;
export type OpponentName = (typeof OPPONENT_NAMES)[number];

/**
 * The learners' opposition: 'self' (every agent learns, sharing the weights), fixed
 * opponents (with several, environment e plays opponents[e % length], a fixed mix), or a
 * league of the learner's past snapshots and scripted teams, one drawn per episode (league.ts).
 */
export type Opponents = 'self' | readonly OpponentName[] | { readonly league: LeagueSettings };

/** The league's settings (a training config's first phase holds them; league.ts plays them). */
export interface LeagueSettings {
  /** Learner steps between snapshots of the learner joining the league. */
  readonly snapshotEvery: number;
  /** Scripted teams in the league beside the past selves. */
  readonly scripted: readonly OpponentName[];
  /** Share of episodes against the newest snapshot; the rest are drawn by PFSP over every member. */
  readonly latestShare: number;
  /** p in PFSP's weight (1 - x)^p: 1 is proportional to the learner's losses, larger favours the hardest. */
  readonly exponent: number;
  /**
   * Each update, past results are multiplied by this before the new ones are added, so the
   * score tracks the learner as it is now (0.98: half-weight after 34 updates) and a member
   * not met for a while drifts back towards the prior and is tried again.
   */
  readonly decay: number;
}

/** Whether any of these opponents is `name`, as a fixed opponent or in a league. */
export function playsAgainst(opponents: Opponents, name: OpponentName): boolean {
  if (opponents === 'self') return false;
  return 'league' in opponents ? opponents.league.scripted.includes(name) : opponents.includes(name);
}

/** The trained skills' networks, as a plan carries them to worker threads (plain arrays, cloned). */
export type TrainedSkillNetworks = Readonly<Record<SkillId, PolicyNetworkWeights>>;

/** A stretch of training against one opposition: until `until` x totalSteps learner steps. */
export interface OpponentPhase {
  readonly opponents: Opponents;
  /** Share of totalSteps at which the phase ends (the last phase's is 1). */
  readonly until: number;
}

/**
 * Who teaches a model (the teacher term of PpoConfig): a scripted skill or the heuristic
 * team, which read the learner's observation as a skill does, or a tree, over the scripted
 * skills (bt-scripted) or the trained ones (bt), which reads the world and plays the
 * learners' side unseen (env.ts VecEnv.teach).
 */
export type TeacherName = SkillId | 'heuristic' | TeamTeacherName;

/** The teachers that read the world and play the learners' side unseen (VecEnv.teach). */
export const TEAM_TEACHERS = ['bt-scripted', 'bt'] as const;
export type TeamTeacherName = (typeof TEAM_TEACHERS)[number];

/** Whether a teacher is a team that plays through the VecEnv rather than a script reading observations. */
export function isTeamTeacher(name: TeacherName): name is TeamTeacherName {
  return (TEAM_TEACHERS as readonly string[]).includes(name);
}

export interface ModelTrainingConfig {
  readonly ppo: PpoConfig;
  /** Who the learners play, phase after phase. */
  readonly phases: readonly OpponentPhase[];
  /** Whose actions the teacher term pulls towards (null: none, whatever teacherCoef says). */
  readonly teacher: TeacherName | null;
  /** Extra reward cost per shot (scenarios.ts withShotCost); absent: the scenario's reward alone. */
  readonly shotCost?: number;
  /**
   * Share of totalSteps over which the shot cost rises linearly from 0 to shotCost (absent
   * or 0: the full cost from the start).
   */
  readonly shotCostRamp?: number;
}

/** What to train, as data (a worker thread is given it; learner.ts trains it). */
export interface TrainingPlan {
  readonly scenario: ModelName;
  readonly config: PpoConfig;
  readonly phases: readonly OpponentPhase[];
  readonly teacher: TeacherName | null;
  /** Extra cost per shot in the reward (withShotCost); 0 or absent: the scenario's own reward. */
  readonly shotCost?: number;
  /** Share of the steps over which the shot cost rises from 0 (shotCostAt); absent: the full cost throughout. */
  readonly shotCostRamp?: number;
  /** The trained skills' networks, where a phase plays bt (read by the entry point: cli/train.ts). */
  readonly trainedSkills?: TrainedSkillNetworks;
}

/** The teacher that teaches (null: none): one named at weight 0 teaches nothing, and a team teacher then plays no tree. */
export function teachingTeacher(teacher: TeacherName | null, config: Pick<PpoConfig, 'teacherCoef'>): TeacherName | null {
  return config.teacherCoef > 0 ? teacher : null;
}

/**
 * Whether a training plays bt, the tree over the trained skills, as an opponent or as the
 * teacher that teaches: then its plan carries the skills' networks (TrainingPlan.trainedSkills).
 */
export function playsTrainedSkills(training: Pick<ModelTrainingConfig, 'phases' | 'teacher'> & { readonly ppo: Pick<PpoConfig, 'teacherCoef'> }): boolean {
  return teachingTeacher(training.teacher, training.ppo) === 'bt' || training.phases.some((p) => playsAgainst(p.opponents, 'bt'));
}

/** The opposition at `steps` of a run of `totalSteps`. */
export function opponentsAt(phases: readonly OpponentPhase[], steps: number, totalSteps: number): Opponents {
  const phase = phases.find((p) => steps < p.until * totalSteps) ?? phases.at(-1);
  if (!phase) throw new Error('a training config needs at least one opponent phase');
  return phase.opponents;
}

/** The phases as a card's sentence: "self-play for 15,000,000 steps, then heuristic". */
export function describePhases(phases: readonly OpponentPhase[], totalSteps: number, describe: (o: Opponents) => string): string {
  return phases
    .map((p, i) => (i < phases.length - 1 ? `${describe(p.opponents)} for ${Math.round(p.until * totalSteps).toLocaleString('en-US')} steps` : describe(p.opponents)))
    .join(', then ');
}

/** The shot cost at `steps` of a run of `totalSteps` (ModelTrainingConfig.shotCost and shotCostRamp). */
export function shotCostAt(plan: { readonly shotCost?: number; readonly shotCostRamp?: number }, steps: number, totalSteps: number): number {
  const cost = plan.shotCost ?? 0;
  const ramp = plan.shotCostRamp ?? 0;
  return ramp > 0 ? cost * Math.min(1, steps / (ramp * totalSteps)) : cost;
}

/** The teacher term's weight at `steps` (PpoConfig.teacherCoef, teacherFraction, teacherFloor). */
export function teacherWeight(config: PpoConfig, steps: number): number {
  if (config.teacherCoef <= 0) return 0;
  const progress = config.teacherFraction > 0 ? Math.min(1, steps / (config.teacherFraction * config.totalSteps)) : 1;
  return config.teacherCoef * (1 - progress * (1 - config.teacherFloor));
}

/**
 * The skills, measured with bt vs bt-scripted over 200 games each (npm run tournament;
 * combat and secure trained 3M steps, the other skills 1M, all with a teacher):
 * - a teacher decaying from 1 to 0 by half-way: 2% bt wins (at 1M; PPO alone drifted back
 *   to spraying, 38% accuracy); a constant weight 5 with initial log std -1.5: 22.5% wins,
 *   55% losses; weight 20: 23% / 48.5%; the teacher as a log-likelihood instead of a
 *   squared error: 8.5% / 72.5%; 2x128 networks: no closer to the script, 2.5x slower.
 * - a shot cost of 0.2 on top (hits over shots): 24% / 50%, kept for the fighting skills.
 * - navigate and retreat with the constant teacher lost 10 points of bt wins against their
 *   decaying-teacher versions (reaching a target fast is what their reward measures, and
 *   PPO improves on the script's path there), so they keep the decaying teacher.
 * Budgets: the study's 10M steps, 20M for combat and secure (3M did much better than 1M).
 * What still separates bt from bt-scripted: the policy's move is 0.04 off the script's
 * "stand still to shoot" (median), and a moving weapon spreads (72% accuracy vs 86%).
 */
/** The fighting skills' teacher: weight 5 throughout, and a policy that starts near its teacher's means. */
const FIGHTING_TEACHER = { teacherCoef: 5, teacherFraction: 1, teacherFloor: 1, initLogStd: -1.5 } as const;
const FIGHTING_SKILL = { ...PPO_DEFAULTS, totalSteps: 20_000_000, ...FIGHTING_TEACHER };
const MOVING_SKILL = { ...PPO_DEFAULTS, totalSteps: 10_000_000, teacherCoef: 1, teacherFraction: 0.5, teacherFloor: 0 };
/** Skills play the heuristic team and bt-scripted half and half: the study's opponent, and the team bt must match. */
const SKILL_PHASES: readonly OpponentPhase[] = [{ opponents: ['heuristic', 'bt-scripted'], until: 1 }];
/** The shot cost of the fighting skills: a hit earns 0.5, so a shot pays from 40% accuracy. */
const SHOT_COST = 0.2;

/**
 * Flat RL, with the study's settings where ours differed before (CleanRL style: every value
 * in one place, with its reason):
 * - hidden [128, 128]: the study's. The old 2x64 flat lost 99.6% to bt with K/D 0.74; the
 *   WebAssembly SIMD kernel (simdMatmul.ts) made 2x128 affordable (npm run bench).
 * - learningRate 3e-4 (was 1e-3): the study's. The opponents change from episode to episode, and
 *   the smaller step keeps each update from overfitting the opponents of one rollout.
 * - gaeLambda 0.99 (was 0.95): the study's. A win (+-5) comes seconds after the fights and
 *   zone time that earn it; 0.99 carries it further back before trusting the value.
 * - teacher bt, the tree over the trained skills, at the fighting skills' weight, 5
 *   throughout (FIGHTING_TEACHER), and the skills' opponents (SKILL_PHASES: the heuristic
 *   team and bt-scripted, half and half). The tree plays the learners' side unseen (env.ts
 *   VecEnv.teach) and the policy is pulled towards its actions: flat starts from the
 *   product's own team folded into one network, and PPO improves on it. It reads the
 *   skills in the folder it writes to, so the skills train first. Over the same 200 games
 *   per matchup it won 96.5% against the heuristic team with 1.5% draws, and 13.5% against
 *   bt (K/D 0.81); with the tree over the scripted skills (bt-scripted) as teacher, 92.5%
 *   and 10.5% (K/D 0.72); and the recipe before those (10M steps against a league of past
 *   selves, then 20M against the heuristic team) 89.5% and 1.0% (K/D 0.07). Tried and not
 *   kept (docs/training.md): the study's split (15M league, then 15M: 55.0% wins, 37.1%
 *   draws against the heuristic team); bt in the league (its score against bt stayed 0.00);
 *   the secure script as teacher, fading to 0 by half-way (56.5% draws against the
 *   heuristic team) or by 10M (K/D 0.13 against bt); bt-scripted at weight 1 fading over the
 *   run (K/D 0.47 against bt, but 16% losses to the heuristic team) or by 10M (43% wins
 *   there); bt-scripted at weight 5 with bt among the opponents (7.5% wins against bt, K/D 0.68).
 * - shotCost 0.1, rising linearly from 0 over the first half (shotCostRamp 0.5): a hit earns
 *   0.2 (0.02 per damage point, 10 a hit) and a kill 0.5, so at the full cost a shot pays
 *   from about 40% accuracy; the old flat sprayed 101 shots per episode at 33.7%. The
 *   skills' 0.2 is set against their hit value of 0.5 the same way. The ramp, because the
 *   full cost from the start killed firing: a run with it fired with probability 0.000 with
 *   an enemy in sight after 3.3M steps (it never learned to aim before shots cost more than
 *   they earned). That run had no teacher; the ramp stays as the shipped flat was trained.
 * Other values are PPO_DEFAULTS' (minibatch 256 rather than the study's 64: the kernels do
 * several times more per sample at that size).
 */
const FLAT_TRAINING: ModelTrainingConfig = {
  ppo: { ...PPO_DEFAULTS, seed: 5, totalSteps: 30_000_000, hidden: [128, 128], learningRate: 3e-4, gaeLambda: 0.99, ...FIGHTING_TEACHER },
  phases: SKILL_PHASES,
  teacher: 'bt',
  shotCost: 0.1,
  shotCostRamp: 0.5,
};

/**
 * What `npm run train` runs for a model (and the training bench measures): its phases,
 * teacher and shot cost, with the run's own `config`, and the trained skills where it plays bt.
 */
export function trainingPlan(scenario: ModelName, config: PpoConfig, trainedSkills?: TrainedSkillNetworks): TrainingPlan {
  const { phases, teacher, shotCost, shotCostRamp } = TRAINING_CONFIGS[scenario];
  return {
    scenario,
    config,
    phases,
    teacher,
    ...(shotCost ? { shotCost } : {}),
    ...(shotCostRamp ? { shotCostRamp } : {}),
    ...(trainedSkills ? { trainedSkills } : {}),
  };
}

export const TRAINING_CONFIGS: Readonly<Record<ModelName, ModelTrainingConfig>> = {
  navigate: { ppo: { ...MOVING_SKILL, seed: 1 }, phases: SKILL_PHASES, teacher: 'navigate' },
  combat: { ppo: { ...FIGHTING_SKILL, seed: 2 }, phases: SKILL_PHASES, teacher: 'combat', shotCost: SHOT_COST },
  secure: { ppo: { ...FIGHTING_SKILL, seed: 3 }, phases: SKILL_PHASES, teacher: 'secure', shotCost: SHOT_COST },
  retreat: { ppo: { ...MOVING_SKILL, seed: 4 }, phases: SKILL_PHASES, teacher: 'retreat' },
  flat: FLAT_TRAINING,
};
