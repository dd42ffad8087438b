/**
 * Language-model plumbing that knows no team: prompts, answer parsing and validation, the
 * chat contract and the page's proxy client, timing, the decision cache's addressing,
 * counters and settings. Browser-safe: the page may import any file here. What needs Node
 * (node: modules, the OpenAI SDK, the embedded local engine) lives in ./node/ and is
 * imported by path where it is needed: the Node access (./node/index.ts), the SDK client,
 * the local engine and its chat client, the disk cache, the engine's channel between threads,
 * llm:pull and the shipped adapter's card. test/layers.test.ts holds the page to this side.
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
export * from './servedFiles';
export * from './gemmaPrompt';
export * from './numberScores';
export * from './pageModel';
export * from './pageAccess';
export * from './tokens';
export * from './ruleClient';
export * from './exam';
