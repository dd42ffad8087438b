/**
 * The hierarchical controller: a strategist picks a skill per agent at its own rate; the
 * skills turn observations into actions at 12.5 Hz. Which implementation runs each skill
 * (scripted or RL) is the SkillSet it is given.
 */
import type { Action, Team, World } from '../sim';
import { teamAgents } from '../sim';
import type { SkillId, SkillSet } from '../skills';
import { type Decision, type DecisionSource, type TeamController, andThen } from './controller';
import { PolicyRunner } from './policyRunner';

export interface StrategistAnswer {
  /** One skill per agent, slot order. */
  readonly skills: readonly SkillId[];
  readonly rationale?: string;
}

export interface Strategist {
  readonly source: DecisionSource;
  /** Ticks between decisions (25 = 2 Hz at 50 Hz). */
  readonly periodTicks: number;
  /** A new choice, or null to keep the current skills. */
  decide(world: World, team: Team, current: readonly SkillId[]): StrategistAnswer | null | Promise<StrategistAnswer | null>;
}

export class HierarchicalController implements TeamController {
  readonly currentSkills: SkillId[] = [];
  private runner: PolicyRunner | null = null;

  constructor(
    readonly id: string,
    readonly team: Team,
    private readonly strategist: Strategist,
    private readonly skills: SkillSet,
    private readonly onDecision?: (decision: Decision) => void,
    private readonly initialSkill: SkillId = 'navigate',
  ) {}

  act(world: World, actions: Action[]): void | Promise<void> {
    const runner = (this.runner ??= this.start(world));
    const decided =
      world.tick % this.strategist.periodTicks === 0
        ? andThen(this.strategist.decide(world, this.team, this.currentSkills), (answer) => this.apply(world, answer))
        : undefined;
    return andThen(decided, () =>
      andThen(runner.isSkillTick(world) ? runner.run(world, (slot) => this.skills[this.currentSkills[slot]!]) : undefined, () =>
        runner.write(actions),
      ),
    );
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
    this.onDecision?.({
      tick: world.tick,
      team: this.team,
      skills: [...answer.skills],
      source: this.strategist.source,
      ...(answer.rationale ? { rationale: answer.rationale } : {}),
    });
  }

  private start(world: World): PolicyRunner {
    const ids = teamAgents(world, this.team).map((a) => a.id);
    ids.forEach(() => this.currentSkills.push(this.initialSkill));
    return new PolicyRunner(ids);
  }
}
