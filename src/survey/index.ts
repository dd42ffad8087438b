/**
 * The user study with no HTTP: study configs (config.ts), counterbalancing (latin.ts), the
 * protocol (service.ts, flow.ts: where a participant stands), SQLite storage (store.ts),
 * episode checks by re-simulation (episodeCheck.ts), export and analysis with its report.
 * Imports report, match, teams, llm, skills, sim and stats; the server and cli drive it.
 */
export * from './analysis';
export * from './config';
export * from './episodeCheck';
export * from './export';
export * from './flow';
export * from './latin';
export * from './report';
export * from './service';
export * from './store';
export * from './limits';
export * from './textCheck';
