/**
 * Team controllers behind one interface (TeamController, controller.ts): heuristic, behavior
 * tree, random, flat RL, LLM, the planner (planner.ts, rollouts in copies of the world: rollout.ts) and the hierarchical strategist-over-skills controller; the
 * registry of team ids and variants (createTeam, resolveTeam, teamAvailability) and the
 * Platform teams are built on (createPlatform). Imports llm, skills, sim and stats.
 * Imported by path: human.ts (a person's team, for the page) and nodePlatform.ts (the
 * PlatformSpec and the Node platform, Node-only).
 */
export * from './controller';
export * from './platform';
export * from './entry';
export * from './hierarchical';
export * from './flat';
export * from './heuristic';
export * from './behaviorTree';
export * from './randomStrategist';
export * from './registry';
export * from './llmStrategist';
export * from './llmTeam';
export * from './planner';
export * from './rollout';
export * from './variant';
export * from './personas';
