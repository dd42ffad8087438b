/**
 * Input checks shared by the statistics modules. Every failure throws an
 * `Error` whose message names the argument and the offending value, so a bad
 * tournament record is reported instead of silently producing NaN.
 */

/** Throws unless `value` is a finite, non-negative integer (a count of events). */
export function assertCount(name: string, value: number): void {
  if (!Number.isFinite(value) || !Number.isInteger(value)) {
    throw new Error(`${name} must be a finite integer count, got ${String(value)}`);
  }
  if (value < 0) {
    throw new Error(`${name} must not be negative, got ${value}`);
  }
}

/** Throws unless every entry of `values` is a non-negative integer count. */
export function assertCounts(name: string, values: readonly number[]): void {
  values.forEach((v, i) => assertCount(`${name}[${i}]`, v));
}

/** Throws unless `value` is a finite number. */
export function assertFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) {
    throw new Error(`${name} must be a finite number, got ${String(value)}`);
  }
}

/** Throws unless `value` lies strictly between 0 and 1. */
export function assertOpenUnit(name: string, value: number): void {
  if (!(value > 0 && value < 1)) {
    throw new Error(`${name} must lie strictly between 0 and 1, got ${String(value)}`);
  }
}
