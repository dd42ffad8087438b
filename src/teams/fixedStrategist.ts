/**
 * The constant plan: one skill per agent, chosen before the match and never changed. A
 * baseline the study lacked: in this game a good constant plan is strong ("both secure"
 * beats flat), so a strategist earns its keep only by beating the best of them.
 */
import type { Team, World } from '../sim';
import type { SkillId } from '../skills';
import type { Strategist, StrategistAnswer } from './hierarchical';

export class FixedStrategist implements Strategist {
  readonly source = 'rule' as const;
  private decided = false;

  constructor(private readonly skills: readonly SkillId[]) {}

  decide(_world: World, _team: Team, current: readonly SkillId[]): StrategistAnswer | null {
    if (this.decided) return null;
    this.decided = true;
    if (this.skills.length !== current.length) {
      throw new Error(`the fixed plan names ${this.skills.length} skills (${this.skills.join('+')}) for a team of ${current.length}`);
    }
    return { skills: this.skills };
  }
}
