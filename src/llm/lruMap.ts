/**
 * A map that holds at most `capacity` entries, dropping the least recently used one when a
 * new one would pass it. Reading an entry (get) makes it the most recent. Counts what it
 * dropped, so tests and figures read the bound at work. Browser-safe.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  /** Entries dropped to stay within the capacity (deletes are not counted). */
  evictions = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`LruMap: the capacity must be a whole number of at least 1, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The entry, made the most recent; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    // A Map iterates in insertion order: re-inserting moves the key to the most recent end.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The entry, leaving its place in the order as it is. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as K);
      this.evictions++;
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
