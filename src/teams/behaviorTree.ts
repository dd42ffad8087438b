/**
 * The behavior-tree strategist, the study's baseline: per agent, retreat when badly hurt
 * and a pickup is present; near the zone, secure it (one agent only) or defend it with
 * Combat; otherwise fight a visible enemy; else navigate. It reads the same discretised
 * situation the LLM reads. The tree is data (MDSL) run by mistreevous.
 */
import { BehaviourTree, State } from 'mistreevous';
import { type AgentSituation, type Team, type TeamSituation, type World, teamSituation } from '../sim';
import { type SkillId, isSkillId } from '../skills';
import type { Strategist, StrategistAnswer } from './hierarchical';

export const SKILL_SELECTION_TREE = `root {
  selector {
    sequence {
      condition [IsHealthLow]
      condition [IsPickupPresent]
      action [Choose, "retreat"]
    }
    sequence {
      condition [IsNearZone]
      selector {
        sequence {
          condition [MaySecure]
          action [Choose, "secure"]
        }
        action [Choose, "combat"]
      }
    }
    sequence {
      condition [IsEnemyVisible]
      action [Choose, "combat"]
    }
    action [Choose, "navigate"]
  }
}`;

/** Every condition the tree may call; each is a pure function of the agent's situation and the blackboard. */
const CONDITIONS = ['IsHealthLow', 'IsPickupPresent', 'IsNearZone', 'IsEnemyVisible', 'MaySecure'] as const;

/** What the tree's conditions and actions read and write for one agent's step. */
class TreeAgent {
  [name: string]: unknown;
  me!: AgentSituation;
  slot = 0;
  chosen: SkillId = 'navigate';

  constructor(private readonly blackboard: Blackboard) {}

  IsHealthLow() {
    return this.me.health === 'LOW';
  }
  IsPickupPresent() {
    return this.me.pickupPresent;
  }
  IsNearZone() {
    return this.me.inZone || this.me.zone === 'NEAR';
  }
  IsEnemyVisible() {
    return this.me.enemyVisible;
  }
  /** The one-securer rule: secure only if no teammate holds the claim. */
  MaySecure() {
    return this.blackboard.securer === null || this.blackboard.securer === this.slot;
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
  /** Slot of the agent that holds the zone, or null. */
  securer: number | null;
}

export class BehaviorTreeStrategist implements Strategist {
  readonly source = 'behavior-tree' as const;
  private readonly blackboard: Blackboard = { securer: null };
  private readonly agents: TreeAgent[] = [];
  private readonly trees: BehaviourTree[] = [];
  /** Per agent, the condition key of its last tree step (-1: none yet). */
  private readonly lastKey: number[] = [];
  /** The situation of the latest decision, for the strategist panel. */
  lastSituation: TeamSituation | null = null;

  constructor(
    readonly periodTicks: number,
    private readonly definition: string = SKILL_SELECTION_TREE,
  ) {}

  decide(world: World, team: Team, current: readonly SkillId[]): StrategistAnswer {
    const situation = teamSituation(world, team);
    this.lastSituation = situation;
    while (this.trees.length < situation.agents.length) {
      const agent = new TreeAgent(this.blackboard);
      agent.slot = this.agents.length;
      this.agents.push(agent);
      this.trees.push(new BehaviourTree(this.definition, agent));
      this.lastKey.push(-1);
    }
    // An eliminated securer releases its claim before anyone decides.
    const securer = this.blackboard.securer;
    if (securer !== null && !situation.agents[securer]?.alive) this.blackboard.securer = null;
    const skills = situation.agents.map((me, slot) => {
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
      if (agent.chosen === 'secure') this.blackboard.securer = slot;
      else if (this.blackboard.securer === slot) this.blackboard.securer = null;
      return agent.chosen;
    });
    return { skills };
  }
}
