/**
 * Forms of the MCP page (issue 17 item 6): register a server (admins: stdio or streamable HTTP,
 * tenant-wide, `POST /v1/admin/mcp-servers`; users: a personal streamable HTTP one,
 * `POST /v1/user/mcp-servers`). Environment variables and headers are `NAME=value` / `Name: value`
 * lines; values may reference a stored secret as `${secret:NAME}` (resolved at connect time, never shown).
 */
import { useState, type FormEvent } from 'react';
import { invalidate } from '../api/cache';
import { api } from '../api/http';
import type { McpServerInput, McpServerView } from '../api/types';
import { useAction } from '../app/use-action';

/** Parse `KEY<sep>value` lines into a record (blank lines skipped). @throws Error naming a bad line */
export function parsePairs(text: string, sep: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const i = line.indexOf(sep);
    if (i <= 0) throw new Error(`“${line.slice(0, 40)}” is not ${sep === '=' ? 'NAME=value' : 'Name: value'}`);
    out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

/** Register form. `admin` true = tenant server (stdio allowed); false = a personal HTTP server. */
export function RegisterServer({ admin }: { admin: boolean }) {
  const [name, setName] = useState('');
  const [transport, setTransport] = useState<McpServerInput['transport']>('streamable_http');
  const [url, setUrl] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [env, setEnv] = useState('');
  const [headers, setHeaders] = useState('');
  const [trusted, setTrusted] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setDone(null);
    void run(async () => {
      const body: McpServerInput = transport === 'stdio'
        ? { name: name.trim(), transport, command: command.trim(), args: args.split('\n').map((a) => a.trim()).filter(Boolean), env: parsePairs(env, '=') }
        : { name: name.trim(), transport, url: url.trim(), headers: parsePairs(headers, ':') };
      if (admin) body.trusted = trusted;
      const made = await api<McpServerView>(admin ? '/v1/admin/mcp-servers' : '/v1/user/mcp-servers', { method: 'POST', json: body });
      invalidate('/v1/admin/mcp-servers');
      invalidate('/v1/user/mcp-servers');
      setName(''); setUrl(''); setCommand(''); setArgs(''); setEnv(''); setHeaders(''); setTrusted(false);
      setDone(`Added ${made?.name ?? 'the server'}.`);
    });
  };
  const label = admin ? 'Register a tenant MCP server' : 'Add a personal MCP server';
  return (
    <form className="card catalog-form" aria-label={label} onSubmit={submit}>
      <h2>{label}</h2>
      <label>Name<input value={name} maxLength={128} required onChange={(e) => setName(e.target.value)} /></label>
      {admin && (
        <label>Transport
          <select value={transport} onChange={(e) => setTransport(e.target.value as McpServerInput['transport'])}>
            <option value="streamable_http">Streamable HTTP</option>
            <option value="stdio">stdio (runs a command on this workstation)</option>
          </select>
        </label>
      )}
      {transport === 'streamable_http' ? (
        <>
          <label>URL<input type="url" value={url} required placeholder="https://tools.example.com/mcp" onChange={(e) => setUrl(e.target.value)} /></label>
          <label>Headers <span className="muted small">(one “Name: value” a line; use ${'{'}secret:NAME{'}'} for a stored secret)</span>
            <textarea rows={2} value={headers} onChange={(e) => setHeaders(e.target.value)} placeholder={'Authorization: Bearer ${secret:TOOLS_TOKEN}'} /></label>
        </>
      ) : (
        <>
          <label>Command<input value={command} required placeholder="node" onChange={(e) => setCommand(e.target.value)} /></label>
          <label>Arguments <span className="muted small">(one a line)</span><textarea rows={2} value={args} onChange={(e) => setArgs(e.target.value)} /></label>
          <label>Environment <span className="muted small">(one NAME=value a line; the server gets nothing else)</span>
            <textarea rows={2} value={env} onChange={(e) => setEnv(e.target.value)} placeholder={'API_KEY=${secret:API_KEY}'} /></label>
        </>
      )}
      {admin && <label className="check"><input type="checkbox" checked={trusted} onChange={(e) => setTrusted(e.target.checked)} />Trusted (honour the server's tool annotations, e.g. read-only tools run without approval)</label>}
      {!admin && <p className="muted small">Personal servers speak streamable HTTP; only an administrator can add a server that runs a command here.</p>}
      <div className="row-buttons"><button type="submit" className="primary" disabled={busy || !name.trim()}>{admin ? 'Register server' : 'Add server'}</button></div>
      {done && <p className="ok small" role="status">{done}</p>}
      {error && <p className="error small" role="alert">{error}</p>}
    </form>
  );
}
