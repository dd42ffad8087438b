/**
 * Statistics in plain TypeScript with no dependencies: Wilson intervals, proportion,
 * chi-square, exact and rank tests (Friedman, Wilcoxon), multiple comparisons, agreement
 * and ratings. Imports nothing of ours; any layer may import it.
 */
export * from './chiSquare';
export * from './descriptive';
export * from './distributions';
export * from './entropy';
export * from './gamma';
export * from './proportions';
export * from './random';
export * from './ratings';
export * from './wilson';
export { assertCount } from './validate';
export * from './friedman';
export * from './multipleComparisons';
export * from './ranks';
export * from './wilcoxon';
export * from './agreement';
export * from './heldBack';
