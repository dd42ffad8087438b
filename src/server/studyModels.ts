/**
 * The trained models a study server checks participants' episodes with, checked before it
 * takes any: a damaged or swapped model would otherwise leave every episode's AI side
 * unchecked. They are loaded as `match` and `tournament` load them before their first
 * episode (ModelLibrary.load: the card fits this build, the file is the one its SHA-256
 * names, its probe reproduces).
 */
import { SKILL_IDS, type ModelLibrary } from '../skills';
import { teamEntries } from '../teams';

/** Every trained model replay verification loads for some AI team: the trained skills, and each policy model a team plays (read from how each team acts). */
export function verificationModelNames(): readonly string[] {
  const names = new Set<string>();
  for (const { acts } of teamEntries()) {
    if (acts.by === 'skills' && acts.skillSets.includes('trained')) for (const skill of SKILL_IDS) names.add(skill);
    if (acts.by === 'policy' && 'model' in acts.policy) names.add(acts.policy.model);
  }
  return [...names];
}

/** Load every model episodes are checked with; throw, naming each that does not load and why, if any does not. */
export async function checkStudyModels(models: ModelLibrary): Promise<void> {
  const problems: string[] = [];
  for (const name of verificationModelNames()) await models.load(name).catch((err: Error) => problems.push(err.message));
  if (problems.length === 0) return;
  throw new Error(
    `the study server checks participants' episodes with the trained models in ${models.source?.where ?? 'no folder'}, and ${problems.length === 1 ? 'one does' : `${problems.length} do`} not load, so it does not start:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
}
