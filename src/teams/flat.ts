/**
 * A team whose agents all run one policy on their own observations, with no strategist:
 * the heuristic training opponent, and the flat RL policy.
 */
import type { Action, Team, World } from '../sim';
import { teamAgents } from '../sim';
import { type Policy, checkPolicyFits } from '../skills';
import { type TeamController, andThen } from './controller';
import { PolicyRunner } from './policyRunner';

export class FlatController implements TeamController {
  readonly currentSkills: null[] = [];
  private runner: PolicyRunner | null = null;

  constructor(
    readonly id: string,
    readonly team: Team,
    private readonly policy: Policy,
  ) {}

  act(world: World, actions: Action[]): void | Promise<void> {
    const runner = (this.runner ??= this.start(world));
    const ran = runner.isSkillTick(world) ? runner.run(world, () => this.policy) : undefined;
    return andThen(ran, () => runner.write(actions));
  }

  private start(world: World): PolicyRunner {
    checkPolicyFits(this.policy, world.config);
    const ids = teamAgents(world, this.team).map((a) => a.id);
    ids.forEach(() => this.currentSkills.push(null));
    return new PolicyRunner(world.config, ids);
  }
}
