/**
 * Skills: the catalogue of the four skills (catalogue.ts), their scripted reference policies
 * (scripted.ts), the Policy interface, the ONNX policy runtime and model cards, and
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
