/**
 * The trained skills a training run plays as bt (as an opponent or as its teacher), read
 * from a model folder on Node: each network checked against its card, and each file's
 * fingerprint, so a run taught by them can name what taught it (its card and checkpoint).
 */
import { SKILL_IDS, type SkillId } from '../skills';
import { readTrainedNetwork } from '../skills/nodeModels';
import type { TrainedSkillNetworks } from './config';

export interface TrainedSkills {
  readonly networks: TrainedSkillNetworks;
  /** Each skill file's fingerprint, as tournaments name models (the first 16 hex digits of its SHA-256). */
  readonly fingerprints: Readonly<Record<SkillId, string>>;
}

export function readTrainedSkills(dir: string): TrainedSkills {
  // Names a missing file and refuses one that differs from its card.
  const read = SKILL_IDS.map((id) => ({ id, ...readTrainedNetwork(dir, id) }));
  return {
    networks: Object.fromEntries(read.map((r) => [r.id, r.network])) as TrainedSkillNetworks,
    fingerprints: Object.fromEntries(read.map((r) => [r.id, r.fingerprint])) as Record<SkillId, string>,
  };
}
