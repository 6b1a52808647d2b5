import type { CliCommand } from '../command.js';
import { jsonOption, printer } from '../output.js';

/** One kind of held-out estimate as the `pricing.eval` admin op measures it. */
interface HeldOut {
  n: number;
  mdape: number | null;
  coverage: number | null;
}

/** What the `pricing.eval` admin op answers. */
interface PricingEvalResult {
  observations: number;
  creators: number;
  active_model: string | null;
  train_observations: number;
  campaigns: HeldOut;
  peers: HeldOut;
  seconds: number;
}

/** What the `pricing.fit` admin op answers. */
interface PricingFitResult {
  version: string;
  observations: number;
  estimates: number;
  evaluation: { campaigns: HeldOut; peers: HeldOut };
  seconds: { read: number; fit: number; write: number };
}

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);

function heldOutLine(label: string, h: HeldOut): string {
  return `${label.padEnd(34)} ${String(h.n).padStart(7)} prices  MdAPE of mid ${pct(h.mdape).padStart(7)}  inside low–high ${pct(h.coverage).padStart(7)}`;
}

function describeEval(r: PricingEvalResult): string[] {
  return [
    `${r.observations.toLocaleString('en-US')} campaign prices of ${r.creators.toLocaleString('en-US')} creators; ` +
      `fitted on ${r.train_observations.toLocaleString('en-US')} (active model: ${r.active_model ?? 'none yet'})`,
    heldOutLine('campaign-based (held-out campaigns)', r.campaigns),
    heldOutLine('peer-based (held-out creators)', r.peers),
  ];
}

export const pricingEvalCommand: CliCommand = {
  name: 'pricing eval',
  maxPositionals: 0,
  usage: 'cds pricing eval [--json]',
  summary:
    "measure the price model on the store's campaign prices, held out by creator: MdAPE of the mid estimate and the share inside low–high",
  options: { ...jsonOption('the figures') },
  op: 'pricing.eval',
  toArgs: () => ({}),
  print: printer<PricingEvalResult>({ text: describeEval }),
};

export const pricingFitCommand: CliCommand = {
  name: 'pricing fit',
  maxPositionals: 0,
  usage: 'cds pricing fit [--json]',
  summary: 'refit the price model now (a campaign load does so too) and rewrite every creator’s estimates',
  options: { ...jsonOption('the fit') },
  op: 'pricing.fit',
  toArgs: () => ({}),
  print: printer<PricingFitResult>({
    text: (r) => [
      `fitted ${r.version} on ${r.observations.toLocaleString('en-US')} campaign prices; wrote ${r.estimates.toLocaleString('en-US')} estimates ` +
        `(read ${r.seconds.read.toFixed(2)} s, fit ${r.seconds.fit.toFixed(2)} s, write ${r.seconds.write.toFixed(2)} s)`,
      heldOutLine('campaign-based (held-out campaigns)', r.evaluation.campaigns),
      heldOutLine('peer-based (held-out creators)', r.evaluation.peers),
    ],
  }),
};

export const pricingCommands: readonly CliCommand[] = [pricingEvalCommand, pricingFitCommand];
