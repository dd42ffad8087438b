/**
 * Language-model plumbing that knows no team: prompts, answer parsing and validation, the
 * chat contract and the page's proxy client, timing, the decision cache's addressing,
 * counters and settings. Browser-safe; the SDK client, the disk cache (./node) and the
 * shipped adapter's card (./adapterCard) are Node-only, loaded where they are needed.
 */
export * from './access';
export * from './clock';
export * from './chat';
export * from './prompt';
export * from './terseState';
export * from './answer';
export * from './timing';
export * from './counters';
export * from './cache';
export * from './settings';
export * from './proxyClient';
export * from './tokens';
export * from './ruleClient';
export * from './exam';
