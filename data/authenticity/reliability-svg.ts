import type { ReliabilityBin } from './evaluation.js';

const W = 360;
const H = 360;
const PAD = 48;

const x = (p: number): number => PAD + p * (W - 2 * PAD);
const y = (p: number): number => H - PAD - p * (H - 2 * PAD);
const esc = (s: string): string => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A reliability diagram as a self-contained SVG: observed fraud rate against
 * mean predicted probability per bin (dot area ∝ creators in the bin), the
 * diagonal a perfectly calibrated model would follow, and the ECE in the title.
 */
export function reliabilitySvg(title: string, bins: readonly ReliabilityBin[], ece: number | null): string {
  const total = bins.reduce((s, b) => s + b.n, 0) || 1;
  const pts = bins.filter((b) => b.n > 0 && b.mean_predicted !== null && b.observed !== null);
  const dots = pts.map(
    (b) =>
      `<circle cx="${x(b.mean_predicted ?? 0).toFixed(1)}" cy="${y(b.observed ?? 0).toFixed(1)}" ` +
      `r="${(2.5 + 14 * Math.sqrt(b.n / total)).toFixed(1)}" fill="#2b6cb0" fill-opacity="0.55"><title>${b.lo.toFixed(1)}–${b.hi.toFixed(1)}: ` +
      `${b.n} creators, predicted ${(b.mean_predicted ?? 0).toFixed(3)}, observed ${(b.observed ?? 0).toFixed(3)}</title></circle>`,
  );
  const line = pts
    .map((b, i) => `${i === 0 ? 'M' : 'L'}${x(b.mean_predicted ?? 0).toFixed(1)},${y(b.observed ?? 0).toFixed(1)}`)
    .join(' ');
  const ticks = [0, 0.2, 0.4, 0.6, 0.8, 1].map(
    (t) =>
      `<text x="${x(t)}" y="${H - PAD + 16}" text-anchor="middle">${t}</text><text x="${PAD - 8}" y="${y(t) + 4}" text-anchor="end">${t}</text>` +
      `<line x1="${x(t)}" y1="${y(0)}" x2="${x(t)}" y2="${y(1)}" stroke="#eee"/><line x1="${x(0)}" y1="${y(t)}" x2="${x(1)}" y2="${y(t)}" stroke="#eee"/>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="#fff"/>
${ticks.join('\n')}
<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>
<rect x="${x(0)}" y="${y(1)}" width="${x(1) - x(0)}" height="${y(0) - y(1)}" fill="none" stroke="#333"/>
${line ? `<path d="${line}" fill="none" stroke="#2b6cb0" stroke-width="1.5"/>` : ''}
${dots.join('\n')}
<text x="${W / 2}" y="18" text-anchor="middle" font-size="12" font-weight="bold">${esc(title)}</text>
<text x="${W / 2}" y="33" text-anchor="middle">ECE ${ece === null ? 'n/a' : ece.toFixed(4)} · ${total.toLocaleString('en-US')} creators</text>
<text x="${W / 2}" y="${H - 10}" text-anchor="middle">predicted fraud probability (bin mean)</text>
<text transform="translate(14 ${H / 2}) rotate(-90)" text-anchor="middle">observed fraud rate</text>
</svg>
`;
}
