import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { createLogger } from '../../../config/logger.js';
import {
  ExportRequestSchema,
  createExport,
  exportFileName,
  runExportNow,
  toExportJob,
  type ExportJob,
} from '../../../connectors/exports/index.js';
import { CreatorSearchService } from '../../../data/creators/creator-search.service.js';
import { DomainError } from '../../../data/errors.js';
import { findAccount } from '../../../data/keys/key.queries.js';
import { PlanCatalogue } from '../../../data/plans/plan.service.js';
import { DEMO_ACCOUNT_NAME } from '../../../data/seed/demo-account.js';
import { AdminUserError, defineOp, writerStore, type AdminContext } from '../admin-op.js';

/** What `cds export` gets back: the finished job, whose it is, where its file is, and where it was copied if `out` was given. */
export interface ExportOpResult {
  job: ExportJob;
  /** The account the export ran as (its plan's caps applied unless `no_limit`); only its keys can download the file. */
  account: { id: string; name: string; plan: string };
  /** The file in the exports folder (kept until the export expires). */
  file: string;
  out: string | null;
}

/**
 * `cds export`: creates an export job for an account (the demo account unless
 * named), runs it at once in the process that owns the store, and copies the
 * file to `out` when asked. The job is recorded like an API export (same caps,
 * same event) so it shows in `GET /v1/exports` too.
 */
export const exportRun = defineOp({
  name: 'export',
  args: z.object({
    account: z.string().min(1).default(DEMO_ACCOUNT_NAME),
    request: ExportRequestSchema,
    out: z.string().min(1).optional(),
    /** Apply the enterprise cap instead of the account's plan (an operator's export). */
    no_limit: z.boolean().default(false),
  }),
  run: async (ctx, args): Promise<ExportOpResult> => {
    const account = await findAccount(ctx.state, args.account);
    if (!account) throw new AdminUserError(`no account ${args.account}`);
    const plan = args.no_limit ? 'enterprise' : account.plan;
    let job: ExportJob;
    try {
      job = await createExport(
        writerStore(ctx),
        ctx.state,
        new PlanCatalogue(ctx.state),
        { accountId: account.account_id, plan },
        args.request,
        { lookalikes: args.request.source === 'lookalikes' ? await builtIndex(ctx) : undefined },
      );
    } catch (error) {
      if (error instanceof DomainError) throw new AdminUserError(describe(error));
      throw error;
    }
    // Only failures are worth a line here; stderr keeps stdout for the op's result.
    const logger = createLogger({ logLevel: 'error' }, process.stderr);
    const row = await runExportNow(
      { store: writerStore(ctx), state: ctx.state, config: ctx.config, logger },
      job.id,
      account.account_id,
      (done) => ctx.progress({ step: `export ${job.id}`, done, total: 100, unit: '%' }),
    );
    const finished = toExportJob(row);
    if (finished.status !== 'succeeded')
      throw new AdminUserError(`export ${job.id} ${finished.status}: ${finished.error ?? ''}`);
    const file = join(ctx.config.exportsDir, exportFileName(finished.id, finished.format));
    return {
      job: finished,
      account: { id: account.account_id, name: account.name, plan: account.plan },
      file,
      out: args.out ? copyOut(file, args.out) : null,
    };
  },
});

function copyOut(file: string, out: string): string {
  const target = resolve(out);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  return target;
}

/** The error's message, with the faults it does not already name (a filter typo's reason is said once). */
function describe(error: DomainError): string {
  const unnamed = error.errors.filter((e) => !error.message.includes(e.field ?? e.param ?? e.message));
  const details = unnamed.map((e) => `${e.field ?? e.param ?? ''}: ${e.message}`).join('; ');
  return details ? `${error.message} (${details})` : error.message;
}

/** A search index of the writer's store for a lookalikes export: this process serves no searches, so it builds one for the export. */
async function builtIndex(ctx: AdminContext): Promise<CreatorSearchService> {
  const search = new CreatorSearchService(writerStore(ctx), { state: ctx.state });
  await search.buildIndex();
  return search;
}
