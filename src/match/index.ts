export * from './match';
export * from './metrics';
export * from './replay';
export * from './format';
export * from './verify';
export * from './examSet';
