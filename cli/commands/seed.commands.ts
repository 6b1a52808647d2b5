import type { SeedResult } from '../../data/seed/demo-generator.js';
import { int, str, type CliCommand } from '../command.js';
import { jsonOption, printer } from '../output.js';

export const seedCommand: CliCommand = {
  name: 'seed',
  maxPositionals: 0,
  usage: 'cds seed [--creators N] [--seed S] [--as-of YYYY-MM-DD] [--json]',
  summary: 'fill an empty store with the deterministic demo dataset',
  options: {
    creators: { type: 'string', help: 'how many creators (100–5,000,000, default 50,000)' },
    seed: { type: 'string', help: 'the random seed; the same seed makes the same data (default 42)' },
    'as-of': { type: 'string', help: 'the last day of the 365 days of history, YYYY-MM-DD (default: today, UTC)' },
    ...jsonOption('the counts'),
  },
  op: 'seed',
  toArgs: (a) => ({ creators: int(a, 'creators') ?? 50_000, seed: int(a, 'seed') ?? 42, as_of: str(a, 'as-of') }),
  print: printer<SeedResult>({
    text: (r) =>
      `seeded ${r.creators.toLocaleString('en-US')} creators, ${r.historyRows.toLocaleString('en-US')} history rows, ` +
      `${r.posts.toLocaleString('en-US')} posts, ${r.audienceRows.toLocaleString('en-US')} audience rows, ${r.campaigns} campaigns ` +
      `in ${r.seconds.toFixed(1)} s`,
  }),
};
