/**
 * A persona generator in the spirit of Persona Policies (PPol): propose new play styles
 * and keep one only when it adds behavioural coverage. Each candidate is a set of tree
 * parameters; it plays seeded episodes as `bt-scripted` against the heuristic team (sides
 * swapped), its behaviour is profiled (skill use, places), and it is kept when its
 * behaviour distance to every persona kept so far is at least the threshold. What it keeps
 * is data: a name, a description and a prompt fragment written from the parameters, and a
 * variant that plays it (`bt-scripted:engage=NEAR:retreat=MEDIUM...`).
 */
import { runMatch } from '../match';
import { DEFAULT_CONFIG, Rng, deriveSeed } from '../sim';
import { type Persona, PERSONAS, type Platform, type TreeParameters } from '../teams';
import { BEHAVIOUR_THRESHOLD, type BehaviourProfile, behaviourClusters, behaviourDistance, behaviourProfile } from './behaviour';
import type { PlannedEpisode } from './plan';
import { type EpisodeRecord, toRecord } from './records';

export interface SearchOptions {
  readonly platform: Platform;
  /** Candidates to propose. */
  readonly proposals: number;
  /** Episodes each persona plays to be profiled. */
  readonly episodes: number;
  readonly seed: number;
  readonly threshold?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface ProfiledPersona {
  readonly persona: Persona;
  /** The variant that plays it with the scripted skills. */
  readonly variant: string;
  readonly profile: BehaviourProfile;
  /** Behaviour distance to the nearest persona kept before it (null for the library's). */
  readonly novelty: number | null;
  readonly generated: boolean;
}

export interface SearchResult {
  readonly kept: readonly ProfiledPersona[];
  readonly rejected: number;
  /** Distinct behaviours (clusters) of the library alone, and with what the search kept. */
  readonly coverageBefore: number;
  readonly coverageAfter: number;
  readonly threshold: number;
}

/** The variant that gives the tree exactly these parameters. */
export function treeVariant(base: string, p: TreeParameters, tickHz: number): string {
  const keys: [string, string][] = [
    ['engage', p.engageWithin],
    ['noise', String(p.noise)],
    ['priority', p.priority],
    ['reaction', String(Math.round((p.reactionTicks / tickHz) * 100) / 100)],
    ['retreat', p.retreatAt],
    ['securers', String(p.securers)],
    ['zone', p.zoneWithin],
  ];
  return [base, ...keys.map(([k, v]) => `${k}=${v}`)].join(':');
}

/** A persona's description and prompt fragment, in words, from its parameters. */
export function describeParameters(p: TreeParameters): { description: string; prompt: string } {
  const parts: string[] = [];
  if (p.retreatAt === 'never') parts.push('never retreat to heal');
  else if (p.retreatAt === 'MEDIUM') parts.push('retreat to a pickup already at MEDIUM health');
  if (p.priority === 'fight') parts.push('fight visible enemies before taking the zone');
  if (p.engageWithin !== 'FAR') parts.push(`only engage enemies that are ${p.engageWithin === 'NEAR' ? 'NEAR' : 'NEAR or MID'}`);
  if (p.zoneWithin === 'MID') parts.push('head into the zone from MID distance');
  if (p.securers === 0) parts.push('never secure the zone');
  else if (p.securers > 1) parts.push(`let up to ${p.securers} agents secure the zone together`);
  if (p.reactionTicks > 0) parts.push('take your time before changing an agent\'s skill');
  if (p.noise > 0) parts.push('now and then choose a surprising skill');
  const text = parts.length ? parts.join('; ') : "play the study's tree";
  return { description: text.charAt(0).toUpperCase() + text.slice(1) + '.', prompt: `Play this way: ${text}.` };
}

const pick = <T>(rng: Rng, options: readonly T[]): T => options[rng.int(options.length)]!;

/** A random point of the tree's parameter space. */
export function proposeParameters(rng: Rng, tickHz: number): TreeParameters {
  return {
    retreatAt: pick(rng, ['LOW', 'MEDIUM', 'never'] as const),
    zoneWithin: pick(rng, ['NEAR', 'MID'] as const),
    engageWithin: pick(rng, ['NEAR', 'MID', 'FAR'] as const),
    priority: pick(rng, ['zone', 'fight'] as const),
    securers: pick(rng, [0, 1, 2]),
    reactionTicks: Math.round(pick(rng, [0, 0, 0.25, 0.5]) * tickHz),
    noise: pick(rng, [0, 0, 0.1, 0.25]),
  };
}

/** Play a persona's episodes and profile its behaviour. */
async function profile(variant: string, options: SearchOptions, index: number): Promise<BehaviourProfile> {
  const records: EpisodeRecord[] = [];
  for (let e = 0; e < options.episodes; e++) {
    const swap = e % 2 === 1;
    const seed = deriveSeed(options.seed, 'persona-search', e);
    const blue = swap ? 'heuristic' : variant;
    const red = swap ? variant : 'heuristic';
    const episode: PlannedEpisode = { key: `${variant}|heuristic|${e}`, a: variant, b: 'heuristic', index: e, seed, blue, red };
    const match = await runMatch({ blue, red, seed }, { platform: options.platform, record: false });
    records.push(toRecord(episode, match.summary()));
  }
  options.onProgress?.(index + 1, PERSONAS.length + options.proposals);
  return behaviourProfile(records, variant);
}

export async function searchPersonas(options: SearchOptions): Promise<SearchResult> {
  const threshold = options.threshold ?? BEHAVIOUR_THRESHOLD;
  const { tickHz } = DEFAULT_CONFIG;
  const kept: ProfiledPersona[] = [];
  let index = 0;
  for (const persona of PERSONAS) {
    const variant = `bt-scripted:persona=${persona.name}`;
    kept.push({ persona, variant, profile: await profile(variant, options, index++), novelty: null, generated: false });
  }
  const coverageBefore = behaviourClusters(kept.map((k) => k.profile), threshold).length;
  const rng = new Rng(deriveSeed(options.seed, 'persona-proposals', 0));
  let rejected = 0;
  for (let i = 0; i < options.proposals; i++) {
    const tree = proposeParameters(rng, tickHz);
    const variant = treeVariant('bt-scripted', tree, tickHz);
    const p = await profile(variant, options, index++);
    const novelty = Math.min(...kept.map((k) => behaviourDistance(k.profile, p)));
    if (novelty < threshold) {
      rejected++;
      continue;
    }
    const words = describeParameters(tree);
    const persona: Persona = { name: `generated-${kept.filter((k) => k.generated).length + 1}`, ...words, tree };
    kept.push({ persona, variant, profile: { ...p, team: persona.name }, novelty, generated: true });
  }
  const coverageAfter = behaviourClusters(kept.map((k) => k.profile), threshold).length;
  return { kept, rejected, coverageBefore, coverageAfter, threshold };
}
