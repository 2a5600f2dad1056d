/**
 * Serialized product-list pages, kept while the catalog read model stays at the checkpoint they
 * were built from. Bounded: Host headers are caller-chosen cache keys.
 */
export class ProductPageCache {
  private readonly pages = new Map<string, { checkpoint: number | null; body: Buffer }>();

  constructor(private readonly maxEntries = 2000) {}

  get(key: string, checkpoint: number | null): Buffer | undefined {
    const hit = this.pages.get(key);
    if (!hit) return undefined;
    if (hit.checkpoint !== checkpoint) {
      this.pages.delete(key);
      return undefined;
    }
    return hit.body;
  }

  set(key: string, checkpoint: number | null, body: Buffer): void {
    if (this.pages.size >= this.maxEntries) {
      // Map keeps insertion order: drop the oldest entry.
      const oldest = this.pages.keys().next().value;
      if (oldest !== undefined) this.pages.delete(oldest);
    }
    this.pages.set(key, { checkpoint, body });
  }
}
