/**
 * The teams the learners play in training, built from the names a training config gives
 * them (config.ts OPPONENT_NAMES). Each is the same controller a match runs, built afresh
 * per episode so a tree's memory never leaks from one episode into the next.
 */
import type { Action, Team, World } from '../sim';
import { type Policy, SCRIPTED_SKILLS, type SkillSet } from '../skills';
import { networkPolicy } from '../skills/onnxPolicy';
import { PolicyNetwork } from '../skills/policyNetwork';
import { BehaviorTreeStrategist } from '../teams/behaviorTree';
import type { TeamController } from '../teams/controller';
import { FlatController } from '../teams/flat';
import { HEURISTIC_POLICY } from '../teams/heuristic';
import { HierarchicalController } from '../teams/hierarchical';
import { STUDY_TREE } from '../teams/personas';
import type { OpponentName, Opponents, TrainedSkillNetworks } from './config';

/** One side of one environment's episode, played by a team controller. */
export interface OpponentDriver {
  /** Write the side's agents' actions for the coming decision step (4 ticks, held). */
  act(world: World, actions: Action[]): void;
}

/** The skills that play the trained networks. */
export function trainedSkillSet(networks: TrainedSkillNetworks): SkillSet {
  return Object.fromEntries(Object.entries(networks).map(([id, weights]) => [id, networkPolicy(id, new PolicyNetwork(weights))])) as unknown as SkillSet;
}

function controller(name: OpponentName, side: Team, seed: number, skillEveryTicks: number, trained: SkillSet | null): TeamController {
  const tree = () => new BehaviorTreeStrategist(skillEveryTicks, STUDY_TREE, seed);
  switch (name) {
    case 'heuristic':
      return new FlatController(name, side, HEURISTIC_POLICY);
    case 'bt-scripted':
      return new HierarchicalController(name, side, tree(), SCRIPTED_SKILLS);
    case 'bt':
      if (!trained) throw new Error("training opponent 'bt' plays the trained skills: the plan must carry their networks (trainedSkills)");
      return new HierarchicalController(name, side, tree(), trained);
  }
}

/**
 * A fresh team controller for one side of an episode (its tree, if any, seeded by `seed`),
 * writing that side's agents' actions; `trained` plays bt's skills. An opponent plays the red
 * side; a teacher (env.ts VecEnv.teach) plays the learners' side unseen, its actions only targets.
 */
export function createTeamDriver(name: OpponentName, side: Team, seed: number, skillEveryTicks: number, trained: SkillSet | null = null): OpponentDriver {
  const team = controller(name, side, seed, skillEveryTicks, trained);
  return {
    act(world, actions) {
      // Every controller here is synchronous: scripted skills and a tree, no model to wait on.
      if (team.act(world, actions) instanceof Promise) throw new Error(`training team '${name}' must act synchronously`);
    },
  };
}

/** A fresh opponent (the red side) for an episode. */
export function createOpponent(name: OpponentName, seed: number, skillEveryTicks: number, trained: SkillSet | null = null): OpponentDriver {
  return createTeamDriver(name, 1, seed, skillEveryTicks, trained);
}

/** A team of two playing `policy` (a league's frozen snapshot), fresh per episode. */
export function createPolicyOpponent(policy: Policy): OpponentDriver {
  const team = new FlatController(policy.name, 1, policy);
  return {
    act(world, actions) {
      if (team.act(world, actions) instanceof Promise) throw new Error(`training opponent '${policy.name}' must act synchronously`);
    },
  };
}

export function describeOpponents(opponents: Opponents): string {
  if (opponents === 'self') return 'self-play';
  if ('league' in opponents) {
    const { league } = opponents;
    const scripted = league.scripted.length ? ` and ${league.scripted.join(' and ')}` : '';
    return `a league (past selves every ${league.snapshotEvery.toLocaleString('en-US')} steps${scripted}; ${Math.round(100 * league.latestShare)}% newest self, the rest by PFSP (1 - score)^${league.exponent})`;
  }
  return opponents.length === 1 ? opponents[0]! : `a mix of ${opponents.join(' and ')}`;
}
