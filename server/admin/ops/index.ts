import type { AdminOp } from '../admin-op.js';
import { exportRun } from './export.ops.js';
import { keysCreate, keysList, keysRevoke } from './keys.ops.js';
import { pipelineOps } from './pipelines.ops.js';
import { seed } from './seed.ops.js';
import { syncOps } from './sync.ops.js';

/** Every admin operation, by name. Add a feature's ops here. */
export const ADMIN_OPS: ReadonlyMap<string, AdminOp> = new Map(
  ([keysCreate, keysList, keysRevoke, seed, ...syncOps, ...pipelineOps, exportRun] as AdminOp[]).map((op) => [op.name, op]),
);
