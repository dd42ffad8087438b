/**
 * Who the learners play in training, by name, so a training config (and a worker thread
 * given one) says it as data: the heuristic team (the study's only training opponent) or
 * bt-scripted (the behavior tree over the scripted skills, the team a trained skill must
 * match inside bt). Each is the same controller a match runs, built afresh per episode so
 * a tree's memory never leaks from one episode into the next.
 */
import type { Action, World } from '../sim';
import { SCRIPTED_SKILLS } from '../skills';
import { BehaviorTreeStrategist } from '../teams/behaviorTree';
import type { TeamController } from '../teams/controller';
import { FlatController } from '../teams/flat';
import { HEURISTIC_POLICY } from '../teams/heuristic';
import { HierarchicalController } from '../teams/hierarchical';
import { STUDY_TREE } from '../teams/personas';

export const OPPONENT_NAMES = ['heuristic', 'bt-scripted'] as const;
export type OpponentName = (typeof OPPONENT_NAMES)[number];

/**
 * The learners' opposition: 'self' (every agent learns, sharing the weights) or fixed
 * opponents; with several, environment e plays opponents[e % length], a fixed mix.
 */
export type Opponents = 'self' | readonly OpponentName[];

/** The red team (team 1) of one environment's episode. */
export interface OpponentDriver {
  /** Write the red agents' actions for the coming decision step (4 ticks, held). */
  act(world: World, actions: Action[]): void;
}

function controller(name: OpponentName, seed: number, skillEveryTicks: number): TeamController {
  switch (name) {
    case 'heuristic':
      return new FlatController(name, 1, HEURISTIC_POLICY);
    case 'bt-scripted':
      return new HierarchicalController(name, 1, new BehaviorTreeStrategist(skillEveryTicks, STUDY_TREE, seed), SCRIPTED_SKILLS);
  }
}

/** A fresh opponent for an episode (its tree, if any, seeded by the episode). */
export function createOpponent(name: OpponentName, seed: number, skillEveryTicks: number): OpponentDriver {
  const team = controller(name, seed, skillEveryTicks);
  return {
    act(world, actions) {
      // Both controllers are synchronous: scripted skills and a tree, no model to wait on.
      if (team.act(world, actions) instanceof Promise) throw new Error(`training opponent '${name}' must act synchronously`);
    },
  };
}

export function describeOpponents(opponents: Opponents): string {
  return opponents === 'self' ? 'self-play' : opponents.length === 1 ? opponents[0]! : `a mix of ${opponents.join(' and ')}`;
}
