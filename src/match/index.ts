/**
 * One match: the headless loop (Match, runMatch in match.ts) that the page, tournaments and
 * verification all drive; the replay record (replay.ts), its verification by re-simulation
 * (verifyReplay, verifyReplayWithModels), per-match metrics and summaries. Imports teams,
 * llm, skills, sim and stats.
 */
export * from './match';
export * from './metrics';
export * from './replay';
export * from './format';
export * from './rulesText';
export * from './verify';
export * from './examSet';
