/**
 * Before the first episode: every team exists and can play on this platform (its models
 * load, its language model answers). The coordinator runs it, and so does each queue
 * worker for the tournaments it joins, with its own models and language model.
 */
import type { LlmAccess } from '../llm';
import { type Platform, TeamUnavailable, resolveTeam, teamAvailability, teamNeeds } from '../teams';

/** One short call to a language model, so an unreachable one stops the run before it starts. */
async function probeLanguageModel(access: LlmAccess): Promise<void> {
  const connection = await access.connect();
  const timeoutMs = Math.max(5000, connection.settings.timeoutMs * 3);
  try {
    await connection.client.complete({ messages: [{ role: 'user', content: 'Reply with: 1,1' }], temperature: 0, maxTokens: 8 }, AbortSignal.timeout(timeoutMs));
  } catch (err) {
    throw new TeamUnavailable('llm', `cannot reach the model ${connection.client.model} (${connection.provider}): ${(err as Error).message}`);
  }
}

/** Every team must exist and be able to play here: fail before any episode otherwise. */
export async function checkTeams(teams: readonly string[], platform: Platform): Promise<void> {
  if (teams.length < 2) throw new Error(`a tournament needs at least two teams, got ${teams.length}`);
  const seen = new Set<string>();
  for (const id of teams) {
    const name = resolveTeam(id).variant.name;
    if (seen.has(name)) throw new Error(`team '${id}' is listed twice`);
    seen.add(name);
  }
  // Each language model the teams talk to (the platform's, and any a variant names), once.
  const models = new Set<LlmAccess>();
  for (const id of teams) {
    const availability = await teamAvailability(id, platform);
    if (!availability.ok) throw new TeamUnavailable(id, availability.reason);
    if (availability.needs.languageModel) models.add(availability.needs.llm ?? platform.llm);
  }
  for (const access of models) await probeLanguageModel(access);
}

/** Whether any of the teams talks to a language model (its episodes wait on the network, not a core). */
export async function needsLanguageModel(teams: readonly string[], platform: Platform): Promise<boolean> {
  return (await Promise.all(teams.map((id) => teamNeeds(id, platform)))).some((n) => n.languageModel);
}
