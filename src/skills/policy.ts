/**
 * The interface every low-level controller shares, scripted or learned: observations in,
 * actions out, for a batch of agents at once (so ONNX inference can batch). Skills and the
 * flat policy are both Policies.
 */
import type { Action } from '../sim';
import type { SkillId } from './catalogue';

export interface Policy {
  /** What it is, e.g. 'combat' or 'flat'. */
  readonly name: string;
  /** 'scripted' for hand-written behaviours, 'onnx' for trained policies. */
  readonly kind: string;
  /**
   * Write one action per agent. `obs` holds `count` observations of OBS_SIZE numbers each.
   * A learned policy may answer asynchronously.
   */
  act(obs: Float32Array, count: number, out: readonly Action[]): void | Promise<void>;
}

/** One implementation per skill: what a hierarchical team executes. */
export type SkillSet = Readonly<Record<SkillId, Policy>>;
