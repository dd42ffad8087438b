export * from './controller';
export * from './hierarchical';
export * from './flat';
export * from './heuristic';
export * from './behaviorTree';
export * from './randomStrategist';
export * from './registry';
export * from './llm';
