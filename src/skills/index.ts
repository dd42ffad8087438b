export * from './catalogue';
export * from './policy';
export * from './scripted';
export * from './modelCard';
export * from './modelSource';
export * from './onnxPolicy';
export * from './sha256';
