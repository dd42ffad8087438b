/**
 * The user study with no HTTP: study configs (config.ts), counterbalancing (latin.ts), the
 * protocol (service.ts, flow.ts: where a participant stands), SQLite storage (store.ts),
 * episode checks by re-simulation (episodeCheck.ts), export and analysis with its report.
 * The researcher's commands (`npm run survey -- create|list|export|analyze|close|reopen`)
 * are one function each in commands.ts, which src/cli/survey.ts calls with its parsed
 * options; like languageModelNote.ts (which reads the llm's Node-only files) it is imported
 * by path rather than from here.
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
