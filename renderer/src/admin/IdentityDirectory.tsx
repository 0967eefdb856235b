/**
 * Admin → Identity, the corporate directory connection (issue 15 items 3 and 5): its settings as
 * dirauth reports them (`GET /v1/admin/auth/dirauth`; never the bind password) and "Test bind"
 * (`POST /v1/admin/auth/dirauth/test` -> `{ok, latency_ms, code?, error?}`). The settings come from
 * DIRAUTH_LDAP_* and are changed there.
 */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import type { DirauthSettingsView, DirauthTestResult } from '../api/types';
import { useAction } from '../app/use-action';

const URL_ = '/v1/admin/auth/dirauth';

/** The directory card. */
export function IdentityDirectory() {
  const q = useQuery<DirauthSettingsView>(URL_);
  const act = useAction();
  const [result, setResult] = useState<DirauthTestResult | null>(null);
  const s = q.data;
  const test = async (): Promise<void> => {
    setResult(null);
    await act.run(async () => { setResult(await api<DirauthTestResult>(`${URL_}/test`, { method: 'POST' })); });
  };
  const rows: Array<[string, string]> = s && s.configured ? [
    ['URL', s.url ?? ''],
    ['Search account', s.bind_dn ?? 'anonymous'],
    ['Password', s.bind_password_set ? 'set (not shown)' : 'not set'],
    ['User base', s.user_base ?? ''],
    ['User filter', s.user_filter ?? ''],
    ['Group base', s.group_base ?? 'memberOf only'],
    ['TLS', s.start_tls ? 'StartTLS' : s.url?.startsWith('ldaps:') ? 'LDAPS' : 'none'],
    ['CA file', s.ca_file ?? 'system roots'],
    ['Timeout', s.timeout_ms === null ? '' : `${s.timeout_ms} ms`],
  ] : [];
  return (
    <section className="card" data-testid="identity-directory" data-configured={s ? String(s.configured) : ''} aria-label="Directory connection">
      <h3>Directory connection</h3>
      {q.error && <p className="error" role="alert">{q.error.message}</p>}
      {s && !s.configured && <p className="muted">No corporate directory is configured. Set DIRAUTH_LDAP_URL and the other DIRAUTH_LDAP_* settings to sign directory users in.</p>}
      {rows.length > 0 && (
        <table className="table"><tbody>{rows.map(([k, v]) => <tr key={k}><th scope="row">{k}</th><td><code>{v}</code></td></tr>)}</tbody></table>
      )}
      <button type="button" disabled={!s?.configured || act.busy} onClick={() => { void test(); }}>{act.busy ? 'Testing…' : 'Test bind'}</button>
      {result && (
        <p className={result.ok ? 'ok' : 'error'} role="status" data-testid="dirauth-test-result" data-ok={String(result.ok)}>
          {result.ok ? `Bind OK in ${result.latency_ms} ms.` : `Bind failed after ${result.latency_ms} ms: ${result.error ?? result.code ?? 'unknown error'}`}
        </p>
      )}
      {act.error && <p className="error small" role="alert">{act.error}</p>}
    </section>
  );
}
