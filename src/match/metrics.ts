/**
 * Per-episode metrics, gathered from events and controllers' current skills: what the
 * study's tables report (K/D, shots, accuracy, pickups, time per skill, transitions), and
 * how a team moves: where its living agents are (a coarse heatmap sampled at the skill
 * rate) and when the first hit of the match landed.
 */
import { TEAM_NAMES, type World, outcomeSide } from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import type { Decision, TeamController } from '../teams';

export interface AgentMetrics {
  readonly agent: number;
  readonly team: 'blue' | 'red';
  readonly controller: string;
  readonly kills: number;
  readonly deaths: number;
  readonly shots: number;
  readonly hits: number;
  /** hits / shots, or null without shots. */
  readonly accuracy: number | null;
  readonly damageDealt: number;
  readonly pickups: number;
  /** Seconds alive under each skill (empty for controllers without skills). */
  readonly skillSeconds: Partial<Record<SkillId, number>>;
  /** Skill changes, keyed "from->to". */
  readonly skillTransitions: Record<string, number>;
}

export interface MatchSummary {
  readonly seed: number;
  readonly blue: string;
  readonly red: string;
  readonly winner: 'blue' | 'red' | 'draw';
  readonly ticks: number;
  readonly durationSeconds: number;
  /** Seconds of zone progress at the end. */
  readonly progress: { readonly blue: number; readonly red: number };
  readonly decisions: { readonly blue: number; readonly red: number };
  readonly agents: readonly AgentMetrics[];
  readonly behaviour: MatchBehaviour;
  /** Final state hash: equal hashes mean identical matches. */
  readonly hash: string;
}

/** Where the arena is cut for the heatmap: 8 x 5 cells (4 m squares in the standard arena). */
export const HEATMAP_COLS = 8;
export const HEATMAP_ROWS = 5;

export interface MatchBehaviour {
  /** Seconds into the match of the first hit by anyone; null when nobody was hit. */
  readonly firstContactSeconds: number | null;
  /** Per team, living-agent samples per cell (row-major, HEATMAP_COLS x HEATMAP_ROWS), one sample per agent per skill tick. */
  readonly heatmap: { readonly blue: readonly number[]; readonly red: readonly number[] };
}

export class MatchMetrics {
  private readonly skillTicks: Map<SkillId, number>[];
  private readonly transitions: Record<string, number>[];
  private readonly decisionCount = [0, 0];
  private readonly lastSkill: (SkillId | null)[];
  private readonly heatmap = [new Array<number>(HEATMAP_COLS * HEATMAP_ROWS).fill(0), new Array<number>(HEATMAP_COLS * HEATMAP_ROWS).fill(0)];
  private firstContactTick: number | null = null;

  constructor(agentCount: number) {
    this.skillTicks = Array.from({ length: agentCount }, () => new Map());
    this.transitions = Array.from({ length: agentCount }, () => ({}));
    this.lastSkill = Array.from({ length: agentCount }, () => null);
  }

  /** Count a strategist decision. */
  recordDecision(decision: Decision): void {
    this.decisionCount[decision.team]!++;
  }

  /** After each step: time per skill for living agents, every change of skill, positions and the first hit. */
  recordTick(world: World, controllers: readonly TeamController[]): void {
    this.recordPlaces(world);
    for (const controller of controllers) {
      const skills = controller.currentSkills;
      let slot = 0;
      for (const agent of world.agents) {
        if (agent.team !== controller.team) continue;
        const skill = skills[slot++] ?? null;
        const previous = this.lastSkill[agent.id];
        if (skill && previous && skill !== previous) {
          const key = `${previous}->${skill}`;
          this.transitions[agent.id]![key] = (this.transitions[agent.id]![key] ?? 0) + 1;
        }
        this.lastSkill[agent.id] = skill;
        if (!skill || !agent.alive) continue;
        const counts = this.skillTicks[agent.id]!;
        counts.set(skill, (counts.get(skill) ?? 0) + 1);
      }
    }
  }

  private recordPlaces(world: World): void {
    if (this.firstContactTick === null && world.agents.some((a) => a.stats.hits > 0)) this.firstContactTick = world.tick;
    if (world.tick % world.config.skillEveryTicks !== 0) return;
    const { width, height } = world.config.arena;
    for (const a of world.agents) {
      if (!a.alive) continue;
      const col = Math.min(HEATMAP_COLS - 1, Math.max(0, Math.floor((a.x / width) * HEATMAP_COLS)));
      const row = Math.min(HEATMAP_ROWS - 1, Math.max(0, Math.floor((a.y / height) * HEATMAP_ROWS)));
      this.heatmap[a.team]![row * HEATMAP_COLS + col]!++;
    }
  }

  summary(world: World, controllers: readonly TeamController[], hash: string): MatchSummary {
    const hz = world.config.tickHz;
    // A match stopped before its end counts as a draw.
    const winner = outcomeSide(world.outcome) ?? 'draw';
    return {
      seed: world.seed,
      blue: controllers[0]!.id,
      red: controllers[1]!.id,
      winner,
      ticks: world.tick,
      durationSeconds: world.tick / hz,
      progress: { blue: world.progress[0] / hz, red: world.progress[1] / hz },
      decisions: { blue: this.decisionCount[0]!, red: this.decisionCount[1]! },
      agents: world.agents.map((a) => {
        const s = a.stats;
        const skillSeconds: Partial<Record<SkillId, number>> = {};
        for (const skill of SKILL_IDS) {
          const ticks = this.skillTicks[a.id]!.get(skill);
          if (ticks) skillSeconds[skill] = ticks / hz;
        }
        return {
          agent: a.id,
          team: TEAM_NAMES[a.team],
          controller: controllers[a.team]!.id,
          kills: s.kills,
          deaths: s.deaths,
          shots: s.shots,
          hits: s.hits,
          accuracy: s.shots > 0 ? s.hits / s.shots : null,
          damageDealt: s.damageDealt,
          pickups: s.pickups,
          skillSeconds,
          skillTransitions: { ...this.transitions[a.id] },
        };
      }),
      behaviour: {
        firstContactSeconds: this.firstContactTick === null ? null : this.firstContactTick / hz,
        heatmap: { blue: [...this.heatmap[0]!], red: [...this.heatmap[1]!] },
      },
      hash,
    };
  }
}
