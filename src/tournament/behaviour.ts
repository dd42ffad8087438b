/**
 * How differently entrants play, from their episode records: the skill-use distribution
 * and the Jensen-Shannon divergence between entrants, the skill-switch rate, where they go
 * (a heatmap of their living agents, seen from their own base, and its entropy), the time
 * to first contact, and a coverage figure: how many distinct behaviours a population of
 * entrants holds (PPol's measure of a persona population, on our game).
 */
import { HEATMAP_COLS, HEATMAP_ROWS } from '../match';
import { SKILL_IDS } from '../skills';
import { jensenShannonDivergence, weightEntropy } from '../stats';
import type { EpisodeRecord } from './records';

export interface BehaviourProfile {
  readonly team: string;
  readonly episodes: number;
  /** Share of skill time per skill, in SKILL_IDS order; null for teams without skills. */
  readonly skillShare: readonly number[] | null;
  /** Skill changes per agent per minute of play; null for teams without skills. */
  readonly switchesPerMinute: number | null;
  /** Share of living-agent samples per cell, own base on the left (row-major, HEATMAP_COLS x HEATMAP_ROWS). */
  readonly heatmap: readonly number[];
  readonly heatmapEntropyBits: number;
  /** Mean seconds to the first hit, over the episodes that had one; null when none did. */
  readonly firstContactSeconds: number | null;
}

export interface BehaviourComparison {
  readonly profiles: readonly BehaviourProfile[];
  /** Jensen-Shannon divergence of skill use, bits, entrants in profile order (null where a team has no skills). */
  readonly skillDivergence: readonly (readonly (number | null)[])[];
  /** Jensen-Shannon divergence of the heatmaps, bits. */
  readonly placeDivergence: readonly (readonly number[])[];
  /** Entrants grouped by behaviour: two are alike when their behaviour distance is under `threshold`. */
  readonly clusters: readonly (readonly string[])[];
  readonly threshold: number;
}

/** Behaviour distance under which two entrants count as one behaviour (bits; the mean of the skill and place divergences). */
export const BEHAVIOUR_THRESHOLD = 0.02;

/** A red heatmap seen from red's base: mirrored left to right, so every team's own base is on the left. */
function fromOwnBase(cells: readonly number[], side: 'blue' | 'red'): number[] {
  if (side === 'blue') return [...cells];
  const out = new Array<number>(cells.length).fill(0);
  for (let r = 0; r < HEATMAP_ROWS; r++) for (let c = 0; c < HEATMAP_COLS; c++) out[r * HEATMAP_COLS + c] = cells[r * HEATMAP_COLS + (HEATMAP_COLS - 1 - c)]!;
  return out;
}

export function behaviourProfile(records: readonly EpisodeRecord[], team: string): BehaviourProfile {
  const skillSeconds = SKILL_IDS.map(() => 0);
  const heat = new Array<number>(HEATMAP_COLS * HEATMAP_ROWS).fill(0);
  let switches = 0;
  let agentMinutes = 0;
  let contactSum = 0;
  let contacts = 0;
  let episodes = 0;
  for (const r of records) {
    for (const side of ['blue', 'red'] as const) {
      if (r[side] !== team) continue;
      episodes++;
      for (const a of r.agents.filter((x) => x.team === side)) {
        SKILL_IDS.forEach((s, i) => (skillSeconds[i]! += a.skillSeconds[s] ?? 0));
        switches += Object.values(a.skillTransitions).reduce((n, c) => n + c, 0);
        agentMinutes += r.durationSeconds / 60;
      }
      if (r.behaviour) {
        fromOwnBase(r.behaviour.heatmap[side], side).forEach((n, i) => (heat[i]! += n));
        if (r.behaviour.firstContactSeconds !== null) {
          contactSum += r.behaviour.firstContactSeconds;
          contacts++;
        }
      }
    }
  }
  const skillTotal = skillSeconds.reduce((s, x) => s + x, 0);
  const heatTotal = heat.reduce((s, x) => s + x, 0);
  return {
    team,
    episodes,
    skillShare: skillTotal > 0 ? skillSeconds.map((x) => x / skillTotal) : null,
    switchesPerMinute: skillTotal > 0 && agentMinutes > 0 ? switches / agentMinutes : null,
    heatmap: heatTotal > 0 ? heat.map((x) => x / heatTotal) : heat,
    heatmapEntropyBits: weightEntropy(heat),
    firstContactSeconds: contacts > 0 ? contactSum / contacts : null,
  };
}

const hasHeat = (p: BehaviourProfile) => p.heatmap.some((x) => x > 0);

/** The behaviour distance: the mean of the skill and place divergences (place alone for teams without skills). */
export function behaviourDistance(a: BehaviourProfile, b: BehaviourProfile): number {
  const place = hasHeat(a) && hasHeat(b) ? jensenShannonDivergence(a.heatmap, b.heatmap) : 0;
  if (!a.skillShare || !b.skillShare) return place;
  return (jensenShannonDivergence(a.skillShare, b.skillShare) + place) / 2;
}

/** Group profiles greedily: each joins the first group whose first member is within the threshold. */
export function behaviourClusters(profiles: readonly BehaviourProfile[], threshold = BEHAVIOUR_THRESHOLD): string[][] {
  const groups: BehaviourProfile[][] = [];
  for (const p of profiles) {
    const home = groups.find((g) => behaviourDistance(g[0]!, p) < threshold);
    if (home) home.push(p);
    else groups.push([p]);
  }
  return groups.map((g) => g.map((p) => p.team));
}

export function compareBehaviour(records: readonly EpisodeRecord[], teams: readonly string[], threshold = BEHAVIOUR_THRESHOLD): BehaviourComparison {
  const profiles = teams.map((t) => behaviourProfile(records, t));
  return {
    profiles,
    skillDivergence: profiles.map((a) => profiles.map((b) => (a.skillShare && b.skillShare ? jensenShannonDivergence(a.skillShare, b.skillShare) : null))),
    placeDivergence: profiles.map((a) => profiles.map((b) => (hasHeat(a) && hasHeat(b) ? jensenShannonDivergence(a.heatmap, b.heatmap) : 0))),
    clusters: behaviourClusters(profiles, threshold),
    threshold,
  };
}
