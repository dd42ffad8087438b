/**
 * Shared pieces of the property-based tests: mutations of a valid JSON document (one
 * field replaced, removed or added at a random place) and the shape of a clear error.
 */
import fc from 'fast-check';
import { expect } from 'vitest';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path in a JSON document, the root included. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => paths(v, [...prefix, i]))];
  if (value && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  return here;
}

/** Numbers near the edges of what fields take. */
const edgeNumber = fc.constantFrom(-1, 0, 0.5, 1, 2, 7, 1e9, -1e9, 2 ** 32, 2 ** 53, 1e308, -0, 0.1);

const replacement = fc.oneof(fc.jsonValue({ maxDepth: 2 }), edgeNumber, fc.string({ maxLength: 20 }));

export type Mutation = { readonly kind: 'replace' | 'remove' | 'add' | 'nudge'; readonly at: number; readonly value: unknown; readonly key: string };

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('replace', 'remove', 'add', 'nudge'),
  at: fc.nat(),
  value: replacement,
  key: fc.string({ minLength: 1, maxLength: 8 }),
});

/** `doc` with one mutation applied (a deep copy). */
export function mutate<T>(doc: T, m: Mutation): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  const all = paths(copy);
  const path = all[m.at % all.length]!;
  if (path.length === 0) return m.kind === 'replace' ? m.value : copy;
  const parent = path.slice(0, -1).reduce<Json>((node, k) => (node as Record<string | number, Json>)[k]!, copy) as Record<string | number, Json>;
  const last = path.at(-1)!;
  const old = parent[last];
  if (m.kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (m.kind === 'add' && old && typeof old === 'object' && !Array.isArray(old)) (old as Record<string, unknown>)[m.key] = m.value as Json;
  else if (m.kind === 'nudge' && typeof old === 'number') parent[last] = typeof m.value === 'number' ? old + m.value : -old - 1;
  else parent[last] = m.value as Json;
  return copy;
}

/** A clear error: a plain Error with a one-line message (no TypeError or RangeError from deep inside, no stack in the message). */
export function expectClearError(err: unknown, startsWith?: string): void {
  expect(err).toBeInstanceOf(Error);
  const e = err as Error;
  expect(e.constructor, e.stack).toBe(Error);
  expect(e.message.length).toBeGreaterThan(0);
  expect(e.message).not.toMatch(/\n\s+at /);
  if (startsWith) expect(e.message.startsWith(startsWith), e.message).toBe(true);
}

/** Run `fn`, returning what it threw (or undefined). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err;
  }
}
