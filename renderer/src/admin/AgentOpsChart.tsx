/**
 * AgentOps chart (issue 13 item 8): per UTC day, runs as bars (failures the red part of each bar),
 * p95 latency as a line on the right axis. Hand-made SVG like UsageChart: nothing to load.
 */
import type { AgentDay } from '../api/types';

const secs = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);

export function AgentOpsChart({ days, width = 640, height = 200 }: { days: AgentDay[]; width?: number; height?: number }) {
  const pad = { l: 44, r: 64, t: 12, b: 28 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const maxRuns = Math.max(1, ...days.map((d) => d.runs));
  const maxLat = Math.max(1, ...days.map((d) => d.latency_ms.p95 ?? 0));
  const bw = days.length ? w / days.length : w;
  const x = (i: number): number => pad.l + i * bw;
  const barW = Math.min(bw * 0.7, 36);
  const points = days.map((d, i) => (d.latency_ms.p95 === null ? null : [x(i) + bw / 2, pad.t + h - (d.latency_ms.p95 / maxLat) * h] as const));
  const line = points.reduce((acc, p, i) => (p ? `${acc}${acc && points[i - 1] ? 'L' : 'M'}${p[0].toFixed(1)},${p[1].toFixed(1)} ` : acc), '');
  const every = Math.max(1, Math.ceil(days.length / 8));
  return (
    <svg className="chart agentops-chart" data-testid="agentops-chart" viewBox={`0 0 ${width} ${height}`} role="img"
      aria-label={`Runs, failures and p95 latency per day over ${days.length} days`}>
      <line x1={pad.l} y1={pad.t + h} x2={pad.l + w} y2={pad.t + h} className="axis" />
      <text x={pad.l - 6} y={pad.t + 10} className="tick" textAnchor="end">{maxRuns}</text>
      <text x={pad.l - 6} y={pad.t + h} className="tick" textAnchor="end">0</text>
      <text x={pad.l + w + 6} y={pad.t + 10} className="tick">{secs(maxLat)} p95</text>
      {days.map((d, i) => {
        const bh = (d.runs / maxRuns) * h;
        const fh = (d.failures / maxRuns) * h;
        const bx = x(i) + (bw - barW) / 2;
        return (
          <g key={d.day} data-day={d.day} data-runs={d.runs}>
            <rect x={bx} y={pad.t + h - bh} width={barW} height={bh} className="bar">
              <title>{`${d.day}: ${d.runs} runs, ${d.failures} failed, ${d.tool_calls} tool calls (${d.tool_errors} errors), p50 ${d.latency_ms.p50 === null ? '—' : secs(d.latency_ms.p50)}, p95 ${d.latency_ms.p95 === null ? '—' : secs(d.latency_ms.p95)}, $${d.cost_usd.toFixed(4)}`}</title>
            </rect>
            {fh > 0 && <rect x={bx} y={pad.t + h - fh} width={barW} height={fh} className="bar-bad" />}
            {i % every === 0 && <text x={x(i) + bw / 2} y={height - 8} className="tick" textAnchor="middle">{d.day.slice(5)}</text>}
          </g>
        );
      })}
      {line && <path d={line.trim()} className="line" fill="none" />}
      {points.map((p, i) => p && <circle key={days[i]!.day} cx={p[0]} cy={p[1]} r={2.5} className="dot" />)}
    </svg>
  );
}
