/**
 * The simulation: rules, world state, step(), observations, the seeded rng and the game
 * config. Plain deterministic TypeScript: no I/O, no clock, no Math.random, and the
 * engine-dependent functions go through det (detMath.ts). Imports nothing of ours.
 * Entry points: createWorld (world.ts), step (step.ts), observe (observe.ts), hashWorld,
 * DEFAULT_CONFIG (config.ts).
 */
export * as det from './detMath';
export * from './config';
export * from './rng';
export * from './geometry';
export * from './world';
export * from './actions';
export * from './events';
export * from './step';
export * from './observeSpec';
export * from './observe';
export * from './situation';
export * from './hash';
export * from './json';
export * from './words';
