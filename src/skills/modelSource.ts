/**
 * Where trained policies come from. A ModelSource reads a model by name (Node reads
 * models/, the page fetches them; both play them through the TypeScript network); a
 * ModelLibrary, one per platform, loads each model once and shares it among the matches
 * that use it. Teams that need trained models name them; the library says whether each is
 * there without loading it.
 */
import { SKILL_IDS, type SkillId } from './catalogue';
import type { Policy, SkillSet } from './policy';
import { SCRIPTED_SKILLS } from './scripted';

export interface ModelSource {
  /** Where models come from, for messages (e.g. "models/"). */
  readonly where: string;
  load(name: string): Promise<Policy>;
  /** Resolves when the model's files are there and its card reads; rejects saying what is wrong. */
  check(name: string): Promise<void>;
  /** A short digest of the model's weights, for manifests (Node); null where it cannot be read. */
  fingerprint?(name: string): string | null;
}

/** Which implementation runs each skill: the trained policy or the scripted reference. */
export type SkillChoice = Partial<Record<SkillId, 'rl' | 'scripted'>>;

export class ModelLibrary {
  private readonly loaded = new Map<string, Promise<Policy>>();

  /** `source` null: no trained models here (every request says how to get them). */
  constructor(readonly source: ModelSource | null) {}

  /** Load a model once; a failure is not kept, so a fixed file loads next time. */
  load(name: string): Promise<Policy> {
    const source = this.source;
    if (!source) return Promise.reject(new Error(noModels(name)));
    let pending = this.loaded.get(name);
    if (!pending) {
      pending = source.load(name);
      pending.catch(() => this.loaded.delete(name));
      this.loaded.set(name, pending);
    }
    return pending;
  }

  /** null when the model can load here, else why not. */
  async unavailable(name: string): Promise<string | null> {
    if (!this.source) return noModels(name);
    try {
      await this.source.check(name);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  fingerprint(name: string): string | null {
    return this.source?.fingerprint?.(name) ?? null;
  }

  /** The four skills, trained ones by default, scripted where `choice` says so. */
  async skillSet(choice: SkillChoice = {}): Promise<SkillSet> {
    const entries = await Promise.all(
      SKILL_IDS.map(async (id) => [id, choice[id] === 'scripted' ? SCRIPTED_SKILLS[id] : await this.load(id)] as const),
    );
    return Object.fromEntries(entries) as unknown as SkillSet;
  }
}

function noModels(name: string): string {
  return `no trained models are available here: model '${name}' cannot load (the shipped models are in models/, where HILLMIND_MODELS is unset; as a last resort, train it with npm run train -- --skill ${name})`;
}
