import type { Batch, PipelineSource } from '../engine/pipeline.js';

/** Explicit files (`cds ingest <file…>`): one unit per file, deduplicated by checksum, never moved. */
export function filesSource(batches: readonly Batch[]): PipelineSource {
  const queue = [...batches];
  return {
    kind: 'files',
    next: async () => {
      const batch = queue.shift();
      return batch ? { source: `file:${batch.file}`, batches: [batch], dedupeByChecksum: true } : null;
    },
  };
}
