/**
 * The four skills: ids, the numbers the study's compact answer uses ("1,3"), the words the
 * strategist prompt uses, and the training reward each RL policy is trained on.
 */

export const SKILL_IDS = ['navigate', 'combat', 'secure', 'retreat'] as const;
export type SkillId = (typeof SKILL_IDS)[number];

/** Reward weights per skill (the study's values); the trainer computes the terms. */
export interface SkillReward {
  /** Per metre of progress towards the skill's target (zone or pickup). */
  readonly distanceShaping?: number;
  readonly damageDealt?: number;
  readonly facingEnemy?: number;
  readonly kill?: number;
  readonly zoneBonus?: number;
  readonly pickup?: number;
  /** Small costs that keep policies from spraying and dashing for nothing. */
  readonly firePenalty: number;
  readonly dashPenalty: number;
}

export interface SkillInfo {
  readonly id: SkillId;
  /** 1-based number used in the compact "1,3" answer format. */
  readonly number: number;
  readonly name: string;
  /** When the skill fits: shown to strategists (the LLM prompt, the panel). */
  readonly description: string;
  readonly reward: SkillReward;
}

const penalties = { firePenalty: 0.001, dashPenalty: 0.001 } as const;

export const SKILLS: Readonly<Record<SkillId, SkillInfo>> = {
  navigate: {
    id: 'navigate',
    number: 1,
    name: 'Navigate',
    description: 'Move to the capture zone, steering around cover. Use when far from the zone and no fight is needed.',
    reward: { distanceShaping: 0.1, ...penalties },
  },
  combat: {
    id: 'combat',
    number: 2,
    name: 'Combat',
    description: 'Engage the nearest visible enemy: aim, keep a good range, fire. Use to defend the zone perimeter or win a fight.',
    reward: { damageDealt: 0.05, facingEnemy: 0.005, kill: 3.0, ...penalties },
  },
  secure: {
    id: 'secure',
    number: 3,
    name: 'Secure',
    description: 'Enter the zone and hold it from inside, shooting enemies that come near. Only one agent should secure.',
    reward: { zoneBonus: 0.05, damageDealt: 0.05, facingEnemy: 0.005, kill: 3.0, ...penalties },
  },
  retreat: {
    id: 'retreat',
    number: 4,
    name: 'Retreat',
    description: 'Break off and reach a health pickup. Use when badly hurt and a pickup is present.',
    reward: { pickup: 10.0, distanceShaping: 0.5, ...penalties },
  },
};

export function skillByNumber(n: number): SkillId | undefined {
  return SKILL_IDS.find((id) => SKILLS[id].number === n);
}

export function isSkillId(value: unknown): value is SkillId {
  return typeof value === 'string' && (SKILL_IDS as readonly string[]).includes(value);
}
