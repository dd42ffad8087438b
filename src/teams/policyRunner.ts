/**
 * Runs policies for a team's agents at the skill rate (every skillEveryTicks ticks) and
 * holds each agent's last action in between, as the study's 12.5 Hz skills do.
 */
import { type Action, type GameConfig, OBS_SIZE, type World, copyAction, idleAction, observe, resetIdle } from '../sim';
import { type Policy, type SkillContext, skillContext } from '../skills';

export class PolicyRunner {
  /** Last action per slot, applied on every tick until the next skill tick. */
  readonly held: Action[];
  private readonly obs: Float32Array;
  /** The match's game as the policies see it, derived once rather than on every skill tick. */
  private readonly context: SkillContext;

  constructor(
    config: GameConfig,
    private readonly agentIds: readonly number[],
  ) {
    this.context = skillContext(config);
    this.held = agentIds.map(() => idleAction());
    this.obs = new Float32Array(agentIds.length * OBS_SIZE);
  }

  /** True on the ticks where skills choose new actions. */
  isSkillTick(world: World): boolean {
    return world.tick % world.config.skillEveryTicks === 0;
  }

  /** Run `policyOf(slot)` for every living agent, batching agents that share a policy. */
  run(world: World, policyOf: (slot: number) => Policy): void | Promise<void> {
    const groups = new Map<Policy, number[]>();
    this.agentIds.forEach((id, slot) => {
      if (!world.agents[id]!.alive) {
        resetIdle(this.held[slot]!);
        return;
      }
      const policy = policyOf(slot);
      const group = groups.get(policy);
      if (group) group.push(slot);
      else groups.set(policy, [slot]);
    });
    // Each group gets its own stretch of the buffer, so asynchronous policies never share one.
    const pending: Promise<void>[] = [];
    let first = 0;
    for (const [policy, slots] of groups) {
      slots.forEach((slot, k) => observe(world, this.agentIds[slot]!, this.obs, (first + k) * OBS_SIZE));
      const obs = this.obs.subarray(first * OBS_SIZE, (first + slots.length) * OBS_SIZE);
      const result = policy.act(obs, slots.length, slots.map((slot) => this.held[slot]!), this.context);
      if (result instanceof Promise) pending.push(result);
      first += slots.length;
    }
    if (pending.length > 0) return Promise.all(pending).then(() => undefined);
  }

  /** Copy the held actions into the tick's action array. */
  write(actions: Action[]): void {
    this.agentIds.forEach((id, slot) => copyAction(this.held[slot]!, actions[id]!));
  }
}
