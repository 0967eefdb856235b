/** Stack (issue 19 item 1): `GET /v1/admin/stack`, the versions and hashes of what the workstation runs. */
import { useQuery } from '../api/cache';

interface StackView {
  app: { version: string; deployed_update: string | null };
  node: string; sqlite: string | null; sqlite_vec: string | null; onnxruntime: string | null; node_llama_cpp: string | null; llama_cpp: string | null;
  docker: { reachable: boolean; version: string | null; api_version: string | null; error: string | null };
  sandbox_image: { name: string; id: string | null; digests: string[]; present: boolean };
  models: Array<{ service: string; path: string; bytes: number; sha256: string }>;
}

export function StackPanel() {
  const q = useQuery<StackView>('/v1/admin/stack');
  const s = q.data;
  const rows: Array<[string, string]> = s ? [
    ['App', `${s.app.version}${s.app.deployed_update ? ` (update ${s.app.deployed_update} deployed)` : ''}`],
    ['Node.js', s.node], ['SQLite', s.sqlite ?? '—'], ['sqlite-vec', s.sqlite_vec ?? '—'], ['ONNX Runtime', s.onnxruntime ?? '—'],
    ['llama.cpp', `${s.llama_cpp ?? '—'} (node-llama-cpp ${s.node_llama_cpp ?? '—'})`],
    ['Docker engine', s.docker.reachable ? `${s.docker.version} (API ${s.docker.api_version})` : `unreachable: ${s.docker.error ?? ''}`],
    ['Sandbox image', s.sandbox_image.present ? `${s.sandbox_image.name} ${s.sandbox_image.id ?? ''}` : `${s.sandbox_image.name} (missing)`],
  ] : [];
  return (
    <div className="panel" data-testid="stack-panel">
      {q.error && <p className="error">{q.error.message}</p>}
      <table className="table"><tbody>{rows.map(([k, v]) => <tr key={k}><th>{k}</th><td className="mono">{v}</td></tr>)}</tbody></table>
      <h3>Models</h3>
      {s && s.models.length === 0 && <p className="muted">No model files found.</p>}
      <table className="table">
        <tbody>{(s?.models ?? []).map((m) => <tr key={m.path}><td>{m.service}</td><td className="mono small">{m.path}</td><td>{(m.bytes / 1048576).toFixed(1)} MiB</td><td className="mono small">{m.sha256}</td></tr>)}</tbody>
      </table>
    </div>
  );
}
