/**
 * A map that keeps about the `2 × size` entries last set or read, least recently used out first,
 * roughly: sets go to the young map; when it is full it becomes the old one and the previous old
 * one is dropped whole; a hit in the old map moves the entry back to the young one. No per-entry
 * bookkeeping, and no walk over a Map's deleted entries, which evicting the oldest key one at a
 * time from a big Map costs. Shared by the projection runner's document cache and
 * the command handler's folded states.
 */
export class Generations<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(private readonly size: number) {}

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.size && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    this.old.delete(key);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }
}
