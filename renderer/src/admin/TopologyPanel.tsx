/**
 * Topology (issue 19 item 1): `GET /v1/admin/topology` drawn as an SVG graph: each service a node
 * on a circle (green ready, amber not ready, red down) with its port, each call an arrow; the table
 * below gives ports, transports and readiness, and a second table the transport each gRPC-split route
 * used (issue 20: configured, last, counts per transport, HTTP fallbacks). Refreshed every 5 s while shown.
 */
import { useEffect } from 'react';
import { useQuery } from '../api/cache';

interface TopoNode { name: string; port: number; transport: string; state: string; healthy: boolean; readiness: string | null; restarts: number }
interface TopoEdge { from: string; to: string; transport: string; purpose: string }
interface TopoRoute { route: string; service: string; configured: 'grpc' | 'http'; last: 'grpc' | 'http' | null; grpc: number; http: number; fallbacks: number }
interface Topology { nodes: TopoNode[]; edges: TopoEdge[]; routes?: TopoRoute[] }

const W = 720; const H = 520; const R = 200;

function colour(n: TopoNode): string {
  if (n.state !== 'ready') return '#c0392b';
  return n.healthy ? '#2e8b57' : '#d68910';
}

export function TopologyPanel() {
  const q = useQuery<Topology>('/v1/admin/topology');
  const { refetch } = q;
  useEffect(() => { const t = setInterval(() => { void refetch(); }, 5000); return () => clearInterval(t); }, [refetch]);
  const nodes = q.data?.nodes ?? [];
  // The gateway in the centre, the others on a circle.
  const pos = new Map<string, { x: number; y: number }>();
  const ring = nodes.filter((n) => n.name !== 'gateway');
  pos.set('gateway', { x: W / 2, y: H / 2 });
  ring.forEach((n, i) => { const a = (2 * Math.PI * i) / ring.length - Math.PI / 2; pos.set(n.name, { x: W / 2 + R * Math.cos(a), y: H / 2 + R * Math.sin(a) }); });
  return (
    <div className="panel" data-testid="topology-panel">
      {q.error && <p className="error">{q.error.message}</p>}
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label="Service topology">
        <defs><marker id="topo-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#888" /></marker></defs>
        {(q.data?.edges ?? []).map((e, i) => {
          const a = pos.get(e.from); const b = pos.get(e.to);
          if (!a || !b) return null;
          const dx = b.x - a.x; const dy = b.y - a.y; const len = Math.hypot(dx, dy) || 1; const k = 42 / len;
          return <line key={i} x1={a.x + dx * k} y1={a.y + dy * k} x2={b.x - dx * k} y2={b.y - dy * k} stroke="#999" strokeWidth={1} markerEnd="url(#topo-arrow)"><title>{`${e.from} → ${e.to}: ${e.purpose} (${e.transport})`}</title></line>;
        })}
        {nodes.map((n) => {
          const p = pos.get(n.name)!;
          return (
            <g key={n.name} data-testid="topology-node" data-name={n.name} data-healthy={String(n.healthy)}>
              <circle cx={p.x} cy={p.y} r={40} fill={colour(n)} opacity={0.85}><title>{`${n.name}: ${n.state}${n.readiness ? ` — ${n.readiness}` : ''}`}</title></circle>
              <text x={p.x} y={p.y - 2} textAnchor="middle" fontSize="9" fill="#fff">{n.name}</text>
              <text x={p.x} y={p.y + 11} textAnchor="middle" fontSize="9" fill="#fff">:{n.port}</text>
            </g>
          );
        })}
      </svg>
      <table className="table">
        <thead><tr><th>Service</th><th>Port</th><th>Transport</th><th>State</th><th>Health</th><th>Calls</th></tr></thead>
        <tbody>
          {nodes.map((n) => (
            <tr key={n.name}><td>{n.name}</td><td>{n.port}</td><td>{n.transport}</td><td>{n.state}</td><td>{n.healthy ? 'healthy' : (n.readiness ?? 'down')}</td>
              <td className="small">{(q.data?.edges ?? []).filter((e) => e.from === n.name).map((e) => e.to).join(', ') || '—'}</td></tr>
          ))}
        </tbody>
      </table>
      {(q.data?.routes ?? []).length > 0 && (
        <table className="table" data-testid="topology-routes">
          <thead><tr><th>Route</th><th>Service</th><th>Configured</th><th>Last used</th><th>gRPC</th><th>HTTP</th><th>Fallbacks</th></tr></thead>
          <tbody>
            {(q.data?.routes ?? []).map((r) => (
              <tr key={r.route} data-route={r.route} data-last={r.last ?? ''}><td>{r.route}</td><td>{r.service}</td><td>{r.configured}</td><td>{r.last ?? '—'}</td><td>{r.grpc}</td><td>{r.http}</td>
                <td className={r.fallbacks > 0 ? 'warn' : undefined}>{r.fallbacks}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
