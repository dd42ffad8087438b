/**
 * The hierarchical controller: a strategist picks a skill per agent at its own rate; the
 * skills turn observations into actions at 12.5 Hz. Which implementation runs each skill
 * (scripted or RL) is the SkillSet it is given.
 */
import type { Action, Team, World } from '../sim';
import { teamAgents } from '../sim';
import { type SkillId, type SkillSet, checkPolicyFits } from '../skills';
import { type Decision, type DecisionSource, type TeamController, andThen } from './controller';
import { PolicyRunner } from './policyRunner';

/** When an asynchronous strategist's answer was asked for and how long it took. */
export interface DecisionTiming {
  /** The tick the request was made at (the decision applies at Decision.tick). */
  readonly requestTick: number;
  /** Wall-clock milliseconds the answer took (the original call's, when it came from a cache). */
  readonly latencyMs: number;
  /** What asked for it: 'periodic', or events such as 'elimination+contested'. */
  readonly trigger: string;
  /** True when the answer came from the decision cache. */
  readonly cached?: boolean;
}

/** A decision with its timing, as asynchronous strategists report it (replays keep it). */
export interface TimedDecision extends Decision {
  readonly timing?: DecisionTiming;
}

export interface StrategistAnswer {
  /** One skill per agent, slot order. */
  readonly skills: readonly SkillId[];
  readonly rationale?: string;
  readonly timing?: DecisionTiming;
}

export interface Strategist {
  readonly source: DecisionSource;
  /**
   * Ticks between decisions (25 = 2 Hz at 50 Hz): the controller asks on those ticks only.
   * Absent: it asks on every tick and the strategist keeps its own schedule (answers that
   * arrive at any tick, decisions that events ask for).
   */
  readonly periodTicks?: number;
  /**
   * A new choice, or null to keep the current skills. A promise makes the match wait
   * (ONNX inference, a lockstep language model).
   */
  decide(world: World, team: Team, current: readonly SkillId[]): StrategistAnswer | null | Promise<StrategistAnswer | null>;
  /** Free what it holds (a request in flight); absent where it holds nothing. */
  close?(): void;
}

/** Whether the strategist is asked at this tick: on its period's ticks, or every tick when it keeps its own schedule. */
export function strategistDue(strategist: Strategist, tick: number): boolean {
  return strategist.periodTicks === undefined || tick % strategist.periodTicks === 0;
}

/** Every agent's skill before the strategist's first decision. */
export const INITIAL_SKILL: SkillId = 'navigate';

export class HierarchicalController implements TeamController {
  readonly currentSkills: SkillId[] = [];
  private runner: PolicyRunner | null = null;

  constructor(
    readonly id: string,
    readonly team: Team,
    readonly strategist: Strategist,
    private readonly skills: SkillSet,
    private readonly onDecision?: (decision: Decision) => void,
    private readonly initialSkill: SkillId = INITIAL_SKILL,
  ) {}

  act(world: World, actions: Action[]): void | Promise<void> {
    const runner = (this.runner ??= this.start(world));
    const decided = strategistDue(this.strategist, world.tick)
      ? andThen(this.strategist.decide(world, this.team, this.currentSkills), (answer) => this.apply(world, answer))
      : undefined;
    return andThen(decided, () =>
      andThen(runner.isSkillTick(world) ? runner.run(world, (slot) => this.skills[this.currentSkills[slot]!]) : undefined, () =>
        runner.write(actions),
      ),
    );
  }

  close(): void {
    this.strategist.close?.();
  }

  /** Adopt a strategist's answer; report it when it changes anything. */
  apply(world: World, answer: StrategistAnswer | null): void {
    if (!answer) return;
    if (answer.skills.length !== this.currentSkills.length) {
      throw new Error(`strategist gave ${answer.skills.length} skills for ${this.currentSkills.length} agents`);
    }
    const changed = answer.skills.some((s, i) => s !== this.currentSkills[i]);
    if (!changed) return;
    answer.skills.forEach((s, i) => (this.currentSkills[i] = s));
    const decision: TimedDecision = {
      tick: world.tick,
      team: this.team,
      skills: [...answer.skills],
      source: this.strategist.source,
      ...(answer.rationale ? { rationale: answer.rationale } : {}),
      ...(answer.timing ? { timing: answer.timing } : {}),
    };
    this.onDecision?.(decision);
  }

  private start(world: World): PolicyRunner {
    // Any skill may be chosen later, so every one must fit before the match is under way.
    for (const policy of Object.values(this.skills)) checkPolicyFits(policy, world.config);
    const ids = teamAgents(world, this.team).map((a) => a.id);
    ids.forEach(() => this.currentSkills.push(this.initialSkill));
    return new PolicyRunner(world.config, ids);
  }
}
