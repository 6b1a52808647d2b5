/**
 * `node bin/run-ts.mjs tools/eval-purge-detection.ts [--worlds N --creators C --seed S --keep DIR --standard]` —
 * how well bot purge days are found in the follower history
 * (data/authenticity/purge-detection.queries.ts): for each world, with the
 * generator's purge days removed, how many of its true days (those the history
 * covers) detection finds on the day, and how many days it reports that were no
 * purge. The drawn worlds are those of `npm run eval:worlds` with the same
 * arguments (`--keep` reuses them); `--standard` adds the demo's standard world
 * and the held-out setting (20,000 creators each). Reused worlds get their
 * given days back on the next run of `eval:worlds` without `--detect-purges`.
 */
import { parseArgs } from 'node:util';
import {
  HELD_OUT_WORLD,
  TRAIN_WORLD,
  drawWorlds,
  purgeDetection,
  purgeDetectionText,
  withWorlds,
  worldName,
  type World,
} from './demo-worlds.js';

const { values } = parseArgs({
  options: {
    worlds: { type: 'string', default: '8' },
    creators: { type: 'string', default: '8000' },
    seed: { type: 'string', default: '31' },
    keep: { type: 'string' },
    standard: { type: 'boolean', default: false },
  },
});
const worlds: World[] = [
  ...(values.standard ? [TRAIN_WORLD, HELD_OUT_WORLD] : []),
  ...(Number(values.worlds) > 0 ? drawWorlds(Number(values.worlds), Number(values.seed), Number(values.creators)) : []),
];
const total = { trueDays: 0, found: 0, falseDays: 0 };
await withWorlds(
  worlds,
  async (stores) => {
    for (const [i, store] of stores.entries()) {
      const f = await purgeDetection(store);
      total.trueDays += f.trueDays;
      total.found += f.found;
      total.falseDays += f.falseDays;
      console.log(`${worldName(worlds[i]!)}: ${purgeDetectionText(f)}`);
    }
  },
  (line) => console.error(line),
  values.keep,
  'detected',
);
console.log(`all ${worlds.length} worlds: ${purgeDetectionText(total)}`);
