/**
 * The interface every low-level controller shares, scripted or learned: observations in,
 * actions out, for a batch of agents at once (so ONNX inference can batch). Skills and the
 * flat policy are both Policies.
 */
import { type Action, type GameConfig, arenaDiagonal } from '../sim';
import type { SkillId } from './catalogue';

/**
 * What a policy knows of the game besides its observations: the match's config and the
 * numbers scripted skills derive from it on every call. Built once per match (by whoever
 * holds the world) so the hot path reads fields and never recomputes or allocates.
 */
export interface SkillContext {
  readonly config: GameConfig;
  /** Metres per unit of observed distance: observations divide distances by the arena's diagonal. */
  readonly diagonalM: number;
  /** Ray units per unit of observed distance: rays divide by rayLength, distances by the diagonal. */
  readonly diagonalInRays: number;
}

export function skillContext(config: GameConfig): SkillContext {
  const diagonalM = arenaDiagonal(config);
  return { config, diagonalM, diagonalInRays: diagonalM / config.rayLength };
}

export interface Policy {
  /** What it is, e.g. 'combat' or 'flat'. */
  readonly name: string;
  /** 'scripted' for hand-written behaviours, 'onnx' for trained policies. */
  readonly kind: string;
  /**
   * Agents per team of the matches it was trained in. A learned policy has only seen that
   * many teammates and enemies, so it plays no other size; absent when any size fits
   * (scripted behaviours read the observation alone).
   */
  readonly agentsPerTeam?: number;
  /**
   * Write one action per agent. `obs` holds `count` observations of OBS_SIZE numbers each.
   * A learned policy may answer asynchronously.
   */
  act(obs: Float32Array, count: number, out: readonly Action[], context: SkillContext): void | Promise<void>;
}

/** One implementation per skill: what a hierarchical team executes. */
export type SkillSet = Readonly<Record<SkillId, Policy>>;

/** Throw, naming the model and both sizes, unless `policy` plays teams of `config`'s size. */
export function checkPolicyFits(policy: Policy, config: GameConfig): void {
  const trained = policy.agentsPerTeam;
  const wanted = config.agent.perTeam;
  if (trained === undefined || trained === wanted) return;
  throw new Error(
    `model '${policy.name}' was trained for ${trained} agents per team and cannot play a match with ${wanted} per team (${wanted}v${wanted}); use scripted skills or a model trained at that size`,
  );
}
