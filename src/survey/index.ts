export * from './analysis';
export * from './config';
export * from './export';
export * from './flow';
export * from './latin';
export * from './report';
export * from './service';
export * from './store';
