/**
 * Skills: the catalogue of the four skills (catalogue.ts), their scripted reference policies
 * (scripted.ts), the Policy interface, the network that reads, checks and plays trained ONNX
 * models (no ONNX engine: policyNetwork.ts, onnxPolicy.ts), model cards, and
 * ModelLibrary, which loads trained models from a ModelSource. Imports sim and stats only.
 * Browser-safe; nodeModels.ts (models/ on disk) is Node-only and imported by path.
 */
export * from './catalogue';
export * from './policy';
export * from './scripted';
export * from './modelCard';
export * from './modelSource';
export * from './onnxPolicy';
export * from './sha256';
