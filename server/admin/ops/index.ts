import type { AdminOp } from '../admin-op.js';
import { exportRun } from './export.ops.js';
import { keysCreate, keysList, keysRevoke } from './keys.ops.js';
import { modelOps } from './model.ops.js';
import { pipelineOps } from './pipelines.ops.js';
import { planOps } from './plans.ops.js';
import { pricingOps } from './pricing.ops.js';
import { seed } from './seed.ops.js';
import { sourceOps } from './sources.ops.js';
import { syncOps } from './sync.ops.js';

/** Every admin operation, by name. Add a feature's ops here. */
export const ADMIN_OPS: ReadonlyMap<string, AdminOp> = new Map(
  (
    [
      keysCreate,
      keysList,
      keysRevoke,
      ...planOps,
      seed,
      ...syncOps,
      ...pipelineOps,
      ...sourceOps,
      exportRun,
      ...modelOps,
      ...pricingOps,
    ] as AdminOp[]
  ).map((op) => [op.name, op]),
);
