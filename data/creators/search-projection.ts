import type { Queryable, Store } from '../store.js';
import { dataVersion } from './creator-search.queries.js';

/**
 * The sorted search projection (migration 10): knows which data version it was
 * built from and rebuilds itself in the background when that is not the
 * current one. Searches use it only when it is current, so it never serves
 * data older than the version check interval.
 */
export class SearchProjection {
  private builtVersion: string | null = null;
  private loaded: Promise<void> | null = null;
  /** The data version the stored state was last re-read for (a replica's snapshot switch changes it underneath). */
  private stateReadFor: string | null = null;
  private building: Promise<void> | null = null;
  private lastStart = -Infinity;

  /**
   * @param minRebuildIntervalMs rebuilds start at most this often, so a stream of writes does not keep
   *   the store busy rebuilding (searches read `creators` meanwhile)
   */
  constructor(
    private readonly store: Store,
    private readonly track: (work: Promise<unknown>) => void = () => undefined,
    private readonly minRebuildIntervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the projection reflects `version`; otherwise starts a rebuild (once) and answers false. */
  async isCurrent(version: string): Promise<boolean> {
    this.loaded ??= this.loadState();
    await this.loaded;
    if (this.builtVersion === version) return true;
    if (this.stateReadFor !== version) {
      // a cluster replica switched to a newer snapshot, whose writer rebuilt the projection before publishing it
      this.stateReadFor = version;
      await this.loadState();
      if (this.builtVersion === version) return true;
    }
    // a replica's snapshot is read-only: it searches `creators` until a snapshot with a current projection arrives
    if (this.store.readOnly) return false;
    if (!this.building && this.now() - this.lastStart >= this.minRebuildIntervalMs) {
      this.lastStart = this.now();
      this.building = this.rebuild()
        .catch(() => undefined)
        .finally(() => {
          this.building = null;
        });
      this.track(this.building);
    }
    return false;
  }

  /** Rebuilds now (tests and tools); resolves when done. */
  async rebuild(): Promise<void> {
    this.builtVersion = await this.store.transaction(async (tx) => {
      const version = await dataVersion(tx);
      await tx.run('DELETE FROM creator_search_projection');
      await tx.run(`INSERT INTO creator_search_projection
        SELECT creator_id, handle, platform, display_name, niche, country, lower(city), language, followers,
          engagement_rate, growth_30d_pct, authenticity_score, audience_us_pct, verified
        FROM creators ORDER BY followers DESC, creator_id`);
      await tx.run(
        `INSERT OR REPLACE INTO creator_search_projection_state (id, data_version, built_at)
        VALUES (1, ?, now()::TIMESTAMP)`,
        [version],
      );
      return version;
    });
  }

  /**
   * Rebuilds when the projection is not of the store's current data version; the
   * cluster writer calls it before publishing a snapshot, so replicas (which
   * cannot rebuild a read-only file) get a current one. `version`: the store's data
   * version when the caller has just read it. Answers whether it rebuilt.
   */
  async refresh(version?: string): Promise<boolean> {
    await this.loadState();
    if (this.builtVersion === (version ?? (await dataVersion(this.store)))) return false;
    await this.rebuild();
    return true;
  }

  private async loadState(): Promise<void> {
    const row = await (this.store as Store | Queryable)
      .one<{ data_version: string }>('SELECT data_version FROM creator_search_projection_state WHERE id = 1')
      .catch(() => undefined);
    this.builtVersion = row?.data_version ?? null;
  }
}
