/**
 * Before the first episode: every team exists and can play on this platform (its models
 * load, its language model answers). The coordinator runs it, and so does each queue
 * worker for the tournaments it joins, with its own models and language model.
 */
import { type LlmAccess, connectionOwner, preflightTimeoutMs } from '../llm';
import { type Platform, type TeamNeeds, TeamUnavailable, resolveTeam, teamAvailability } from '../teams';

/** One short call to a language model, so an unreachable one stops the run before it starts. */
async function probeLanguageModel(access: LlmAccess): Promise<void> {
  const connection = await access.connect();
  const timeoutMs = preflightTimeoutMs(connection.settings.timeoutMs);
  try {
    await connection.client.complete({ messages: [{ role: 'user', content: 'Reply with: 1,1' }], temperature: 0, maxTokens: 8 }, AbortSignal.timeout(timeoutMs));
  } catch (err) {
    throw new TeamUnavailable('llm', `cannot reach the model ${connection.client.model} (${connection.provider}): ${(err as Error).message}`);
  }
}

/**
 * Every team must exist and be able to play here: fail before any episode otherwise.
 * Returns what each team needs (in the order given), so callers read it rather than ask again.
 */
export async function checkTeams(teams: readonly string[], platform: Platform): Promise<readonly TeamNeeds[]> {
  if (teams.length < 2) throw new Error(`a tournament needs at least two teams, got ${teams.length}`);
  const seen = new Set<string>();
  for (const id of teams) {
    const name = resolveTeam(id).variant.name;
    if (seen.has(name)) throw new Error(`team '${id}' is listed twice`);
    seen.add(name);
  }
  // Each language model the teams talk to (the platform's, and any a variant names), once, whatever format each asks it in.
  const models = new Set<LlmAccess>();
  const needs: TeamNeeds[] = [];
  for (const id of teams) {
    const availability = await teamAvailability(id, platform);
    if (!availability.ok) throw new TeamUnavailable(id, availability.reason);
    if (availability.needs.languageModel) models.add(connectionOwner(availability.needs.llm ?? platform.llm));
    needs.push(availability.needs);
  }
  for (const access of models) await probeLanguageModel(access);
  return needs;
}
