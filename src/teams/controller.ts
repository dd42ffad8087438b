/**
 * The one interface every team controller implements, whatever decides: a script, a
 * behavior tree, a language model, a trained policy or a person.
 */
import type { Action, GameConfig, Team, World } from '../sim';
import type { SkillId } from '../skills';
import type { Platform } from './platform';

/** Who made a strategic decision. */
export type DecisionSource = 'behavior-tree' | 'llm' | 'planner' | 'random' | 'human' | 'rule';

/** A strategist's choice of one skill per agent, stamped with the tick it applied at. */
export interface Decision {
  readonly tick: number;
  readonly team: Team;
  /** One skill per agent of the team, in slot order. */
  readonly skills: readonly SkillId[];
  readonly source: DecisionSource;
  readonly rationale?: string;
}

export interface TeamContext {
  readonly team: Team;
  /** Seed for the controller's own random stream (never the world's). */
  readonly seed: number;
  readonly config: GameConfig;
  /** Where the team finds its trained models, its language model and the clock. */
  readonly platform: Platform;
  /** Told of every decision that changes a skill, for metrics, replays and the panel. */
  readonly onDecision?: (decision: Decision) => void;
}

/** The agents people play on a side, and the AI team beside them (what a replay records of them). */
export interface PeopleOnSide {
  /** Agent ids the people played: their actions are a person's, never derived. */
  readonly agents: readonly number[];
  /** The AI team that played the side's other agents (its decisions are the side's); absent when people played them all. */
  readonly teammate?: string;
}

export interface TeamController {
  /** The registry id this controller was made from, e.g. 'bt-scripted'. */
  readonly id: string;
  readonly team: Team;
  /** The current skill of each agent (slot order); null for controllers without skills. */
  readonly currentSkills: readonly (SkillId | null)[];
  /** Which of its agents people play in this world, and beside which AI team; absent where no person plays. */
  people?(world: World): PeopleOnSide;
  /**
   * Called once per tick, before step(): write this team's agents' actions into
   * `actions` (indexed by agent id). Returns a promise only when it must wait
   * (ONNX inference, a lockstep LLM).
   */
  act(world: World, actions: Action[]): void | Promise<void>;
  /**
   * Free what the controller holds (a language model's request in flight, aborted): the
   * match calls it once it ends or is abandoned, and plays the controller no further.
   * Absent where a controller holds nothing; closing twice is harmless.
   */
  close?(): void;
}

/** Run `next` after `value`, synchronously unless `value` is a promise. */
export function andThen<T, R>(value: T | Promise<T>, next: (v: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
