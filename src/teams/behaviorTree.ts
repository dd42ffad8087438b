/**
 * The behavior-tree strategist, the study's baseline: per agent, retreat when badly hurt
 * and a pickup is present; near the zone, secure it (one agent only) or defend it with
 * Combat; otherwise fight a visible enemy; else navigate. It reads the same discretised
 * situation the LLM reads. The tree is data (MDSL) run by mistreevous; a persona's
 * parameters (src/teams/personas.ts) move its thresholds, its order, how many agents may
 * secure, its reaction time and its noise. With STUDY_TREE it is the study's tree exactly.
 */
import { BehaviourTree, State } from 'mistreevous';
import { type AgentSituation, type DistanceBand, Rng, type Team, type TeamSituation, type World, teamSituation } from '../sim';
import { SKILL_IDS, type SkillId, isSkillId } from '../skills';
import type { Strategist, StrategistAnswer } from './hierarchical';
import { STUDY_TREE, type TreeParameters } from './personas';

/** The tree's branches (MDSL); the order of the zone and fight branches is a persona's priority. */
const RETREAT_BRANCH = `
    sequence {
      condition [IsHealthLow]
      condition [IsPickupPresent]
      action [Choose, "retreat"]
    }`;
const ZONE_BRANCH = `
    sequence {
      condition [IsNearZone]
      selector {
        sequence {
          condition [MaySecure]
          action [Choose, "secure"]
        }
        action [Choose, "combat"]
      }
    }`;
const FIGHT_BRANCH = `
    sequence {
      condition [IsEnemyVisible]
      action [Choose, "combat"]
    }`;

/** Retreat first, then the zone and a visible enemy in the priority's order, else navigate. */
export function skillSelectionTree(priority: TreeParameters['priority']): string {
  const middle = priority === 'zone' ? ZONE_BRANCH + FIGHT_BRANCH : FIGHT_BRANCH + ZONE_BRANCH;
  return `root {
  selector {${RETREAT_BRANCH}${middle}
    action [Choose, "navigate"]
  }
}`;
}

/** The study's tree. */
export const SKILL_SELECTION_TREE = skillSelectionTree('zone');

const BAND_ORDER: readonly DistanceBand[] = ['NEAR', 'MID', 'FAR'];
const within = (band: DistanceBand, limit: DistanceBand) => BAND_ORDER.indexOf(band) <= BAND_ORDER.indexOf(limit);

/** Every condition the tree may call; each is a pure function of the agent's situation and the blackboard. */
const CONDITIONS = ['IsHealthLow', 'IsPickupPresent', 'IsNearZone', 'IsEnemyVisible', 'MaySecure'] as const;

/** What the tree's conditions and actions read and write for one agent's step. */
class TreeAgent {
  [name: string]: unknown;
  me!: AgentSituation;
  slot = 0;
  chosen: SkillId = 'navigate';

  constructor(
    private readonly blackboard: Blackboard,
    private readonly params: TreeParameters,
  ) {}

  /** Hurt enough to retreat, by the persona's threshold (the study's: LOW). */
  IsHealthLow() {
    const at = this.params.retreatAt;
    return at !== 'never' && (this.me.health === 'LOW' || (at === 'MEDIUM' && this.me.health === 'MEDIUM'));
  }
  IsPickupPresent() {
    return this.me.pickupPresent;
  }
  IsNearZone() {
    return this.me.inZone || within(this.me.zone, this.params.zoneWithin);
  }
  IsEnemyVisible() {
    return this.me.enemyVisible && this.me.enemy !== null && within(this.me.enemy, this.params.engageWithin);
  }
  /** The securer rule: secure only while fewer than `securers` teammates hold a claim (the study's: one). */
  MaySecure() {
    const claims = this.blackboard.securers;
    return claims.has(this.slot) || claims.size < this.params.securers;
  }
  /** The conditions' answers as bits: equal keys mean the tree would choose the same. */
  conditionKey(): number {
    let key = 0;
    for (let i = 0; i < CONDITIONS.length; i++) if (this[CONDITIONS[i]!]()) key |= 1 << i;
    return key;
  }
  Choose(skill: unknown) {
    if (!isSkillId(skill)) return State.FAILED;
    this.chosen = skill;
    return State.SUCCEEDED;
  }
}

/** Team-wide memory shared by the agents' trees. */
interface Blackboard {
  /** Slots of the agents that hold the zone. */
  readonly securers: Set<number>;
}

/**
 * The rules the system prompt states, as the study's tree applies them: what it chooses
 * for each agent of a situation, given the team's current skills (an agent securing holds
 * the zone). A pure function of its inputs; the strategist exam's labels. An eliminated
 * agent keeps its skill.
 */
export function rulesChoice(situation: TeamSituation, current: readonly SkillId[], params: TreeParameters = STUDY_TREE): SkillId[] {
  return rulesJudge(params)(situation, current);
}

/** What rulesChoice computes, for many situations, from one tree: each call begins from its own claims, so the answers are rulesChoice's. */
export type RulesJudge = (situation: TeamSituation, current: readonly SkillId[]) => SkillId[];

/**
 * rulesChoice kept ready for repeated use (the llm strategist labels every request with it):
 * building the tree parses its definition, about 280 us a call, where a built one answers
 * in a few.
 */
export function rulesJudge(params: TreeParameters = STUDY_TREE): RulesJudge {
  const tree = new BehaviorTreeStrategist(1, { ...params, reactionTicks: 0, noise: 0 });
  return (situation, current) => {
    tree.claimFrom(situation, current);
    return tree.chooseFor(situation, current);
  };
}

export class BehaviorTreeStrategist implements Strategist {
  readonly source = 'behavior-tree' as const;
  private readonly blackboard: Blackboard = { securers: new Set() };
  private readonly agents: TreeAgent[] = [];
  private readonly trees: BehaviourTree[] = [];
  /** Per agent, the condition key of its last tree step (-1: none yet). */
  private readonly lastKey: number[] = [];
  /** The situation of the latest decision, for the strategist panel. */
  lastSituation: TeamSituation | null = null;

  private readonly definition: string;
  /** Decisions waiting out the reaction time, oldest first. */
  private readonly delayed: { readonly due: number; readonly skills: readonly SkillId[] }[] = [];
  /** Draws the noise's random skills; untouched without noise, so the study's tree stays as it was. */
  private readonly rng: Rng;

  constructor(
    readonly periodTicks: number,
    private readonly params: TreeParameters = STUDY_TREE,
    seed = 1,
  ) {
    this.definition = skillSelectionTree(params.priority);
    this.rng = new Rng(seed);
  }

  decide(world: World, team: Team, current: readonly SkillId[]): StrategistAnswer | null {
    const skills = this.choose(world, team, current);
    if (this.params.reactionTicks <= 0) return { skills };
    this.delayed.push({ due: world.tick + this.params.reactionTicks, skills });
    let ready: readonly SkillId[] | null = null;
    while (this.delayed.length > 0 && this.delayed[0]!.due <= world.tick) ready = this.delayed.shift()!.skills;
    return ready ? { skills: ready } : null;
  }

  /** What the tree chooses now, for every agent. */
  private choose(world: World, team: Team, current: readonly SkillId[]): SkillId[] {
    const situation = teamSituation(world, team);
    this.lastSituation = situation;
    return this.chooseFor(situation, current);
  }

  /**
   * Begin from the claims a team playing `current` holds: an agent alive and securing
   * holds the zone, as it would had this tree chosen those skills.
   */
  claimFrom(situation: TeamSituation, current: readonly SkillId[]): void {
    this.blackboard.securers.clear();
    current.forEach((skill, slot) => {
      if (skill === 'secure' && situation.agents[slot]?.alive) this.blackboard.securers.add(slot);
    });
  }

  /** What the tree chooses for a situation, from the claims it holds. */
  chooseFor(situation: TeamSituation, current: readonly SkillId[]): SkillId[] {
    while (this.trees.length < situation.agents.length) {
      const agent = new TreeAgent(this.blackboard, this.params);
      agent.slot = this.agents.length;
      this.agents.push(agent);
      this.trees.push(new BehaviourTree(this.definition, agent));
      this.lastKey.push(-1);
    }
    // An eliminated securer releases its claim before anyone decides.
    for (const slot of this.blackboard.securers) if (!situation.agents[slot]?.alive) this.blackboard.securers.delete(slot);
    return situation.agents.map((me, slot) => {
      if (!me.alive) return current[slot] ?? 'navigate';
      const agent = this.agents[slot]!;
      agent.me = me;
      // The tree is a pure function of its conditions: step it only when they change
      // (this halves a bt-scripted match's cost; mistreevous dominated the profile).
      const key = agent.conditionKey();
      if (key !== this.lastKey[slot]) {
        this.trees[slot]!.step();
        this.lastKey[slot] = key;
      }
      if (agent.chosen === 'secure') this.blackboard.securers.add(slot);
      else this.blackboard.securers.delete(slot);
      return this.params.noise > 0 && this.rng.next() < this.params.noise ? SKILL_IDS[this.rng.int(SKILL_IDS.length)]! : agent.chosen;
    });
  }
}
