/**
 * Strategist personas: a play style as data. Each has a name and a short description, a
 * fragment the LLM strategist's system prompt carries, and the behavior tree's parameters,
 * so one persona shapes llm, bt and bt-scripted alike (`bt:persona=cautious`).
 *
 * The tree's parameters (what each one changes in the study's tree):
 * - retreatAt: retreat to a present pickup at or below this health ('never': fight on).
 * - zoneWithin: the zone counts as near (secure it or defend it) within this distance band.
 * - engageWithin: fight a visible enemy within this band (FAR: any visible enemy).
 * - priority: 'zone' checks the zone before a visible enemy (the study's order), 'fight'
 *   the other way round.
 * - securers: how many agents may hold the zone at once (the study's rule: one; 0: none).
 * - reactionTicks: game ticks between a decision and its taking effect (rounded up to the
 *   tree's period); a person's reaction time.
 * - noise: the share of an agent's decisions replaced by a random skill (seeded).
 */
import type { DistanceBand, HealthLevel } from '../sim';

export interface TreeParameters {
  readonly retreatAt: Exclude<HealthLevel, 'HIGH'> | 'never';
  readonly zoneWithin: Exclude<DistanceBand, 'FAR'>;
  readonly engageWithin: DistanceBand;
  readonly priority: 'zone' | 'fight';
  readonly securers: number;
  readonly reactionTicks: number;
  readonly noise: number;
}

/** The study's tree, exactly. */
export const STUDY_TREE: TreeParameters = { retreatAt: 'LOW', zoneWithin: 'NEAR', engageWithin: 'FAR', priority: 'zone', securers: 1, reactionTicks: 0, noise: 0 };

export interface Persona {
  readonly name: string;
  readonly description: string;
  /** Appended to the LLM's system prompt as the team's play style. */
  readonly prompt: string;
  readonly tree: TreeParameters;
}

export const PERSONAS: readonly Persona[] = [
  {
    name: 'aggressive',
    description: 'Hunts enemies first and never breaks off to heal.',
    prompt: 'Play aggressively: fight every visible enemy before anything else, keep the pressure on, and do not retreat to heal.',
    tree: { ...STUDY_TREE, retreatAt: 'never', priority: 'fight' },
  },
  {
    name: 'cautious',
    description: 'Heals early and only fights enemies that come close.',
    prompt: 'Play cautiously: retreat to a pickup as soon as an agent is at MEDIUM health or lower, avoid distant fights, and only engage enemies that are NEAR.',
    tree: { ...STUDY_TREE, retreatAt: 'MEDIUM', engageWithin: 'NEAR' },
  },
  {
    name: 'zone-camper',
    description: 'Both agents crowd into the zone from farther out and hold it.',
    prompt: 'Camp the zone: send agents to the zone even from MID distance, let both agents secure it together, and only fight enemies that come NEAR.',
    tree: { ...STUDY_TREE, zoneWithin: 'MID', securers: 2, engageWithin: 'NEAR' },
  },
  {
    name: 'flanker',
    description: 'Never holds the zone; roams and fights anyone in range.',
    prompt: 'Flank: never secure the zone yourself; roam around it and fight enemies at NEAR or MID range to clear the way.',
    tree: { ...STUDY_TREE, securers: 0, priority: 'fight', engageWithin: 'MID' },
  },
  {
    name: 'support',
    description: 'One agent holds the zone; the other guards it and heals early.',
    prompt: 'Support: one agent secures the zone; the other stays near it in Combat to protect it, and retreats to heal at MEDIUM health.',
    tree: { ...STUDY_TREE, retreatAt: 'MEDIUM', zoneWithin: 'MID' },
  },
  {
    name: 'erratic',
    description: 'Reacts late and now and then does something unexpected.',
    prompt: 'Play unpredictably: now and then choose a surprising skill instead of the obvious one.',
    tree: { ...STUDY_TREE, reactionTicks: 12, noise: 0.25 },
  },
  {
    name: 'hesitant',
    description: "The study's tree with a person's half-second reaction time.",
    prompt: 'Take your time: change an agent\'s skill only when the situation clearly calls for it.',
    tree: { ...STUDY_TREE, reactionTicks: 25, noise: 0.05 },
  },
];

export const PERSONA_NAMES = PERSONAS.map((p) => p.name);

export function personaByName(name: string): Persona | undefined {
  return PERSONAS.find((p) => p.name === name);
}
