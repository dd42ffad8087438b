/**
 * Where trained policies come from: a source loads a model by name (Node reads models/ with
 * onnxruntime-node; the page fetches them for onnxruntime-web). Teams that need trained
 * skills ask the installed source; without one they say how to get models.
 */
import { SKILL_IDS, type SkillId } from './catalogue';
import type { Policy, SkillSet } from './policy';
import { SCRIPTED_SKILLS } from './scripted';

export interface ModelSource {
  /** Where models come from, for messages (e.g. "models/"). */
  readonly where: string;
  load(name: string): Promise<Policy>;
}

let installed: ModelSource | null = null;
const cache = new Map<string, Promise<Policy>>();

/** Install the source every model-backed team uses (clears loaded models). */
export function setModelSource(source: ModelSource | null): void {
  installed = source;
  cache.clear();
}

export function modelSource(): ModelSource | null {
  return installed;
}

/** Load a model once per source; a failure is not cached, so a fixed file loads next time. */
export function loadModel(name: string): Promise<Policy> {
  if (!installed) {
    return Promise.reject(new Error(`no trained models are available here: model '${name}' cannot load (train it with npm run train -- --skill ${name})`));
  }
  let pending = cache.get(name);
  if (!pending) {
    pending = installed.load(name);
    pending.catch(() => cache.delete(name));
    cache.set(name, pending);
  }
  return pending;
}

/** Which implementation runs each skill: the trained policy or the scripted reference. */
export type SkillChoice = Partial<Record<SkillId, 'rl' | 'scripted'>>;

/** The four skills, trained ones by default, scripted where `choice` says so. */
export async function loadSkillSet(choice: SkillChoice = {}): Promise<SkillSet> {
  const entries = await Promise.all(
    SKILL_IDS.map(async (id) => [id, choice[id] === 'scripted' ? SCRIPTED_SKILLS[id] : await loadModel(id)] as const),
  );
  return Object.fromEntries(entries) as unknown as SkillSet;
}
