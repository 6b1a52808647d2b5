// The long bad-input drill: the fuzzer of test/integration/fuzz-api.test.ts with
// many more runs per operation, against the app over real HTTP on loopback.
//   node bin/run-ts.mjs tools/drill-fuzz.ts [--runs 200] [--creators 5000] [--seed N] [--record]
import { parseArgs } from 'node:util';
import { startTestApp } from '../test/helpers/app.js';
import { Checks } from '../test/helpers/drill-kit.js';
import { finishDrill } from './drill-record.js';
import { discoverIds } from './fuzz-discover.js';
import { fuzzApi } from './fuzz-openapi.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    creators: { type: 'string' },
    seed: { type: 'string' },
    record: { type: 'boolean' },
  },
});
const runs = Number(values.runs ?? 200);
const creators = Number(values.creators ?? 5000);
const seed = Number(values.seed ?? Date.now() % 2_147_483_647);

const checks = new Checks();
const t = await startTestApp({
  creators,
  env: { CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
  planLimits: { enterprise: { requestsPerMinute: 1_000_000 } },
});
try {
  const doc = (await (await t.api('/v1/openapi.json')).json()) as Record<string, unknown>;
  const key = await t.key({ plan: 'enterprise' });
  const sample = await t.store.all<{ handle: string; platform: string }>(
    'SELECT handle, platform FROM creators ORDER BY creator_id LIMIT 6',
  );
  const knownValues = await discoverIds(doc, {
    baseUrl: t.url,
    key,
    seed,
    knownValues: { handle: sample.map((r) => r.handle), platform: sample.map((r) => r.platform) },
  });
  const started = Date.now();
  const report = await fuzzApi(doc, {
    baseUrl: t.url,
    key,
    runsPerOperation: runs,
    knownValues,
    seed,
    log: (line) => checks.info(line),
  });
  checks.info(
    `${report.operations} operations, ${report.requests} requests in ${((Date.now() - started) / 1000).toFixed(0)} s, seed ${seed}; ` +
      `answers ${JSON.stringify(report.statuses)}`,
  );
  for (const f of report.findings.slice(0, 30))
    checks.info(`finding: ${f.operation} → ${f.status}: ${f.problem.slice(0, 200)} | ${f.request.slice(0, 200)}`);
  checks.check(
    'bad input: no 5xx and a problem+json for every 4xx over every operation',
    report.findings.length === 0,
    `${report.findings.length} finding(s)`,
  );
} finally {
  await t.close();
}
finishDrill(checks, {
  name: 'fuzz',
  command: `node bin/run-ts.mjs tools/drill-fuzz.ts --runs ${runs} --creators ${creators} --seed ${seed}`,
  record: values.record === true,
});
