/**
 * Admin → Identity, upstream identity providers (issue 15 items 2 and 5): list, add, test
 * connection, remove, over `GET|POST /v1/admin/sso/idps`, `DELETE /v1/admin/sso/idps/{alias}` and
 * `POST /v1/admin/sso/idps/{alias}/test` (the auth service's upstream SSO; contracts/upstream-sso.ts).
 * Each provider shows the redirect URI to register at the upstream, with a copy button. The client
 * secret is sent once and never shown again.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { CreateUpstreamIdp, UpstreamIdpTestResult, UpstreamIdpView } from '../api/types';
import { useAction } from '../app/use-action';

const URL_ = '/v1/admin/sso/idps';

/** A read-only value with a Copy button. */
function CopyValue({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async (): Promise<void> => {
    try { await navigator.clipboard.writeText(value); setCopied(true); setTimeout(() => setCopied(false), 1500); } catch { setCopied(false); }
  };
  return (
    <span className="copy-value">
      <code data-testid="redirect-uri">{value}</code>{' '}
      <button type="button" className="link" aria-label={`Copy ${label}`} onClick={() => { void copy(); }}>{copied ? 'Copied' : 'Copy'}</button>
    </span>
  );
}

const EMPTY = { alias: '', display_name: '', issuer: '', client_id: '', client_secret: '', scopes: 'openid email profile', email: 'email', name: 'name', groups: 'groups' };

/** The add form. */
function AddIdp({ onAdded }: { onAdded: (v: UpstreamIdpView) => void }) {
  const [f, setF] = useState(EMPTY);
  const act = useAction();
  const field = (k: keyof typeof EMPTY) => ({ id: `idp-${k}`, value: f[k], onChange: (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value }) });
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const body: CreateUpstreamIdp = {
      alias: f.alias.trim(), issuer: f.issuer.trim(), client_id: f.client_id.trim(), client_secret: f.client_secret,
      scopes: f.scopes.split(/[\s,]+/).filter(Boolean), claims: { email: f.email.trim(), name: f.name.trim(), groups: f.groups.trim() },
      ...(f.display_name.trim() ? { display_name: f.display_name.trim() } : {}),
    };
    await act.run(async () => {
      const v = await api<UpstreamIdpView>(URL_, { method: 'POST', json: body });
      setF(EMPTY);
      invalidate(URL_);
      onAdded(v);
    });
  };
  return (
    <form className="card form-grid" onSubmit={(e) => { void submit(e); }} aria-label="Add an identity provider">
      <h3>Add an identity provider</h3>
      <label htmlFor="idp-alias">Alias</label><input {...field('alias')} required pattern="[a-z0-9][a-z0-9_\-]{0,62}" placeholder="company" />
      <label htmlFor="idp-display_name">Button label</label><input {...field('display_name')} placeholder="Company SSO" />
      <label htmlFor="idp-issuer">Issuer URL</label><input {...field('issuer')} type="url" required placeholder="https://idp.example.com/realms/main" />
      <label htmlFor="idp-client_id">Client ID</label><input {...field('client_id')} required />
      <label htmlFor="idp-client_secret">Client secret</label><input {...field('client_secret')} type="password" autoComplete="off" required />
      <label htmlFor="idp-scopes">Scopes</label><input {...field('scopes')} />
      <label htmlFor="idp-email">Email claim</label><input {...field('email')} required />
      <label htmlFor="idp-name">Name claim</label><input {...field('name')} required />
      <label htmlFor="idp-groups">Groups claim</label><input {...field('groups')} required />
      <div /><button type="submit" className="primary" disabled={act.busy}>Add provider</button>
      {act.error && <p className="error" role="alert">{act.error}</p>}
    </form>
  );
}

/** The providers card. */
export function IdentityIdps() {
  const q = useQuery<{ items: UpstreamIdpView[] }>(URL_);
  const act = useAction<string>();
  const [added, setAdded] = useState<UpstreamIdpView | null>(null);
  const [tests, setTests] = useState<Record<string, UpstreamIdpTestResult>>({});
  const test = async (alias: string): Promise<void> => {
    await act.run(async () => {
      const r = await api<UpstreamIdpTestResult>(`${URL_}/${encodeURIComponent(alias)}/test`, { method: 'POST' });
      setTests((t) => ({ ...t, [alias]: r }));
    }, `test:${alias}`);
  };
  const remove = async (alias: string): Promise<void> => {
    if (!window.confirm(`Remove the identity provider "${alias}"? Its users can no longer sign in through it.`)) return;
    await act.run(async () => { await api(`${URL_}/${encodeURIComponent(alias)}`, { method: 'DELETE' }); invalidate(URL_); }, `remove:${alias}`);
  };
  return (
    <div className="panel" data-testid="identity-idps">
      <section className="card" aria-label="Identity providers">
        <h3>Upstream identity providers</h3>
        {q.error && <p className="error" role="alert">{q.error.message}</p>}
        {added && (
          <p className="ok" role="status" data-testid="idp-added">
            Added {added.alias}. Register this redirect URI at the provider: <CopyValue value={added.redirect_uri} label="redirect URI" />
          </p>
        )}
        <table className="table" aria-label="Upstream identity providers">
          <thead><tr><th>Alias</th><th>Issuer</th><th>Client ID</th><th>Redirect URI</th><th /></tr></thead>
          <tbody>
            {(q.data?.items ?? []).map((i) => {
              const t = tests[i.alias];
              return (
                <tr key={i.alias} data-testid="idp-row" data-alias={i.alias}>
                  <td>{i.display_name}{i.display_name !== i.alias && <span className="small muted"> ({i.alias})</span>}{!i.enabled && <span className="small muted"> disabled</span>}</td>
                  <td className="small">{i.issuer}</td>
                  <td className="small">{i.client_id}</td>
                  <td className="small"><CopyValue value={i.redirect_uri} label={`redirect URI of ${i.alias}`} /></td>
                  <td className="row-buttons">
                    <button type="button" className="link" disabled={act.busy} onClick={() => { void test(i.alias); }}>{act.pending === `test:${i.alias}` ? 'Testing…' : 'Test connection'}</button>
                    <button type="button" className="link" disabled={act.busy} onClick={() => { void remove(i.alias); }}>Remove</button>
                    {t && (
                      <span className={`small ${t.ok ? 'ok' : 'error'}`} role="status" data-testid="idp-test-result" data-ok={String(t.ok)}>
                        {t.ok ? 'Discovery OK' : `Failed: ${t.error ?? t.code ?? 'unknown error'}`}
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {q.data && !q.data.items.length && <p className="muted">No upstream identity provider yet.</p>}
        {act.error && <p className="error small" role="alert">{act.error}</p>}
      </section>
      <AddIdp onAdded={setAdded} />
    </div>
  );
}
