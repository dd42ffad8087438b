/** The simulation: rules, world state, observations and situations. No I/O, no clock, no Math.random. */
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
