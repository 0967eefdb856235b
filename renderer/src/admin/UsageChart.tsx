/**
 * A small SVG bar chart of cost (bars) and tokens (line) per day; with no priced model (all costs
 * zero) the bars show tokens instead. Hand-made rather than a charting
 * library: a few hundred bytes, no inline script, nothing to load.
 */
import type { StatsBucket } from '../api/types';

export function UsageChart({ days, width = 640, height = 200 }: { days: StatsBucket[]; width?: number; height?: number }) {
  const pad = { l: 72, r: 64, t: 12, b: 28 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const priced = days.some((d) => d.cost_usd > 0);
  const barOf = (d: StatsBucket): number => (priced ? d.cost_usd : d.total_tokens);
  const maxCost = Math.max(priced ? 1e-9 : 1, ...days.map(barOf));
  const money = (v: number): string => (priced ? `$${v.toFixed(v < 1 ? 4 : 2)}` : `${v.toLocaleString()} tok`);
  const maxTok = Math.max(1, ...days.map((d) => d.total_tokens));
  const bw = days.length ? w / days.length : w;
  const x = (i: number): number => pad.l + i * bw;
  const line = days.map((d, i) => `${i ? 'L' : 'M'}${(x(i) + bw / 2).toFixed(1)},${(pad.t + h - (d.total_tokens / maxTok) * h).toFixed(1)}`).join(' ');
  const every = Math.max(1, Math.ceil(days.length / 8));
  return (
    <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${priced ? 'Cost and tokens' : 'Tokens'} per day over ${days.length} days`}>
      <line x1={pad.l} y1={pad.t + h} x2={pad.l + w} y2={pad.t + h} className="axis" />
      <text x={pad.l - 6} y={pad.t + 10} className="tick" textAnchor="end">{money(maxCost)}</text>
      <text x={pad.l - 6} y={pad.t + h} className="tick" textAnchor="end">{priced ? '$0' : '0'}</text>
      {priced && <text x={pad.l + w + 6} y={pad.t + 10} className="tick">{maxTok.toLocaleString()} tok</text>}
      {days.map((d, i) => {
        const bh = (barOf(d) / maxCost) * h;
        return (
          <g key={d.key}>
            <rect x={x(i) + (bw - Math.min(bw * 0.7, 36)) / 2} y={pad.t + h - bh} width={Math.min(bw * 0.7, 36)} height={bh} className="bar"><title>{`${d.key}: $${d.cost_usd.toFixed(4)}, ${d.total_tokens} tokens, ${d.count} calls`}</title></rect>
            {i % every === 0 && <text x={x(i) + bw / 2} y={height - 8} className="tick" textAnchor="middle">{d.key.slice(5)}</text>}
          </g>
        );
      })}
      {priced && days.length > 1 && <path d={line} className="line" fill="none" />}
    </svg>
  );
}
