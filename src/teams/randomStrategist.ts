/** The ablation strategist: a uniformly random skill per agent at each decision. */
import { Rng, type Team, type World, teamAgents } from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import type { Strategist, StrategistAnswer } from './hierarchical';

export class RandomStrategist implements Strategist {
  readonly source = 'random' as const;
  private readonly rng: Rng;

  constructor(
    readonly periodTicks: number,
    seed: number,
  ) {
    this.rng = new Rng(seed);
  }

  decide(world: World, team: Team): StrategistAnswer {
    const skills: SkillId[] = teamAgents(world, team).map(() => SKILL_IDS[this.rng.int(SKILL_IDS.length)]!);
    return { skills };
  }
}
