/**
 * The user's secrets (spec "Agent runtime surfaces": `/v1/user/secrets`; issue 13 item 3): named
 * values (API keys, tokens) that integrations use by name. Values go in through a password field
 * and are never shown again: the list has names, descriptions and times only. Saving a name that
 * exists replaces its value.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import { SECRET_VALUE_MAX_BYTES, type SecretList, type SecretView } from '../api/types';
import { useAction } from '../app/use-action';
import { validSecretName } from './draft-text';

const SECRETS = '/v1/user/secrets';

function SecretRow({ s }: { s: SecretView }) {
  const [confirming, setConfirming] = useState(false);
  const del = useAction();
  return (
    <li className="secret-row" data-testid="secret-row" aria-label={`Secret ${s.name}`}>
      <div>
        <code>{s.name}</code>
        {s.description && <span className="muted"> — {s.description}</span>}
        <div className="muted small">Set {new Date(s.created_at).toLocaleString()}{s.updated_at !== s.created_at && ` · replaced ${new Date(s.updated_at).toLocaleString()}`}</div>
      </div>
      <div className="row-buttons">
        {confirming ? (
          <>
            <span className="small">Delete {s.name}?</span>
            <button type="button" className="link danger" disabled={del.busy} onClick={() => { void del.run(async () => { await api(`${SECRETS}/${encodeURIComponent(s.name)}`, { method: 'DELETE' }); invalidate(SECRETS); }); }}>Yes, delete</button>
            <button type="button" className="link" onClick={() => setConfirming(false)}>Keep</button>
          </>
        ) : <button type="button" className="link danger" onClick={() => setConfirming(true)} aria-label={`Delete secret ${s.name}`}>Delete</button>}
      </div>
      {del.error && <p className="error small" role="alert">{del.error}</p>}
    </li>
  );
}

function AddSecret({ names }: { names: readonly string[] }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const save = useAction();
  const nameOk = validSecretName(name);
  const tooBig = new TextEncoder().encode(value).length > SECRET_VALUE_MAX_BYTES;
  const replacing = names.includes(name);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setDone(null);
    void save.run(async () => {
      await api(`${SECRETS}/${encodeURIComponent(name)}`, { method: 'PUT', json: { value, ...(description.trim() ? { description: description.trim() } : {}) } });
      setDone(replacing ? `${name} replaced.` : `${name} saved.`);
      setValue('');
      setName('');
      setDescription('');
      invalidate(SECRETS);
    });
  };
  return (
    <form className="secret-add" data-testid="secret-add" aria-label="Add or replace a secret" onSubmit={submit}>
      <input aria-label="Secret name" placeholder="NAME (letters, digits, _ . -)" value={name} onChange={(e) => setName(e.target.value)} maxLength={64} autoComplete="off" spellCheck={false} aria-invalid={name !== '' && !nameOk} />
      <input aria-label="Secret value" type="password" placeholder="Value" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="new-password" spellCheck={false} />
      <input aria-label="Secret description" placeholder="Description (optional)" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
      <button type="submit" className="primary" disabled={save.busy || !nameOk || !value || tooBig}>{replacing ? 'Replace' : 'Save secret'}</button>
      {name !== '' && !nameOk && <span className="error small">A name holds letters, digits, _ . - (up to 64).</span>}
      {tooBig && <span className="error small">A value holds at most 16 KiB.</span>}
      {done && <span className="ok small" role="status">{done}</span>}
      {save.error && <p className="error small" role="alert">{save.error}</p>}
    </form>
  );
}

/** The secrets section of the profile page. */
export function SecretsSection() {
  const list = useQuery<SecretList>(SECRETS);
  const items = list.data?.items ?? [];
  return (
    <section className="card secrets" aria-label="Your secrets">
      <h2>Secrets</h2>
      <p className="muted small">API keys and tokens your integrations use by name. A value is encrypted when saved and never shown again.</p>
      {list.error && <p className="error" role="alert">{list.error.message}</p>}
      {items.length > 0 ? <ul className="secret-list">{items.map((s) => <SecretRow key={s.name} s={s} />)}</ul> : !list.loading && <p className="muted small">No secrets yet.</p>}
      <AddSecret names={items.map((s) => s.name)} />
    </section>
  );
}
