/**
 * Skills (issue 17 item 6; spec "Agent runtime surfaces" `/v1/skills`): named instruction packs in
 * the SKILL.md form. The list, an editor (name, description, the Markdown body in a textarea) with a
 * live preview rendered by the chat's Markdown renderer (`chat/markdown.ts`: raw HTML shown as text,
 * only http(s)/mailto links, no images), save as a new version, delete, and the versions kept with
 * their SHA-256 (the hash a turn's receipt names when the skill was loaded).
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { CatalogScope, ProfileView, SkillInput, SkillVersionView, SkillView } from '../api/types';
import { useAction } from '../app/use-action';
import { renderMarkdown } from '../chat/markdown';
import { listOf, notAvailable, useFreshQuery } from '../agents/catalog';
import { fieldErrors, type FieldErrors } from '../agents/field-errors';
import { SkillFiles, type SkillFile } from './SkillFiles';
import '../agents/agents.css';

interface Draft { name: string; description: string; content: string; scope: CatalogScope; files: SkillFile[] }

const EMPTY: Draft = { name: '', description: '', content: '', scope: 'personal', files: [] };

/** A skill as answered, with its optional files (issue 17 item 2: `files: [{path, content}]`). */
type SkillWithFiles = SkillView & { files?: SkillFile[] };

/** Skill names the model calls `load_skill` with: short, no spaces (kept loose; the server decides). */
const NAME_HINT = 'lowercase-with-dashes';

function Versions({ skill }: { skill: SkillView }) {
  const v = useQuery<unknown>(`/v1/skills/${encodeURIComponent(skill.id)}/versions`);
  const items = listOf<SkillVersionView>(v.data);
  if (v.error) return notAvailable(v.error) ? null : <p className="error small">Versions could not be loaded: {v.error.message}</p>;
  return (
    <section aria-label="Versions" className="skill-versions">
      <h3>Versions</h3>
      <table className="table">
        <thead><tr><th>Version</th><th>SHA-256</th><th>Saved</th></tr></thead>
        <tbody>
          {[...items].sort((a, b) => b.version - a.version).map((x) => (
            <tr key={x.version}><td>v{x.version}</td><td><code title={x.sha256}>{x.sha256.slice(0, 16)}…</code></td><td>{new Date(x.created_at).toLocaleString()}</td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Editor({ skill, isAdmin, onSaved }: { skill: SkillView | null; isAdmin: boolean; onSaved: (s: SkillView | null) => void }) {
  // The list may leave the body out: read the skill itself.
  const full = useQuery<SkillWithFiles>(skill ? `/v1/skills/${encodeURIComponent(skill.id)}` : null);
  const [d, setD] = useState<Draft>(EMPTY);
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const { busy, error, run } = useAction<'save' | 'delete'>();
  const [fieldErr, setFieldErr] = useState<FieldErrors>({});
  const [confirm, setConfirm] = useState(false);
  // Fill the form once per loaded version (state adjusted while rendering, React's pattern for
  // state derived from a changing input; the editor is keyed by the skill).
  const src: SkillWithFiles | null = skill ? (full.data ?? skill) : null;
  const srcKey = src && src.content !== undefined ? `${src.id}@${src.version}` : null;
  if (src && srcKey && srcKey !== loadedFor) {
    setLoadedFor(srcKey);
    setD({ name: src.name, description: src.description ?? '', content: src.content ?? '', scope: src.scope, files: (src.files ?? []).map((f) => ({ ...f })) });
  }
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    // Files are sent when there are some, or when the stored skill had some (so removing all of them saves).
    const hadFiles = (src?.files?.length ?? 0) > 0;
    const body: SkillInput & { files?: SkillFile[] } = {
      name: d.name.trim(), description: d.description.trim(), content: d.content, ...(skill ? {} : { scope: d.scope }),
      ...(d.files.length || hadFiles ? { files: d.files } : {}),
    };
    setFieldErr({});
    void run(async () => {
      try {
        const saved = skill
          ? await api<SkillView>(`/v1/skills/${encodeURIComponent(skill.id)}`, { method: 'PUT', json: body })
          : await api<SkillView>('/v1/skills', { method: 'POST', json: body });
        invalidate('/v1/skills');
        if (skill) invalidate(`/v1/skills/${encodeURIComponent(skill.id)}`);
        onSaved(saved ?? null);
      } catch (err) {
        const by = fieldErrors(err);
        setFieldErr(by);
        if (by['']) throw err;
      }
    }, 'save');
  };
  return (
    <div className="skill-editor">
      <form className="card catalog-form" aria-label={skill ? `Edit skill ${skill.name}` : 'New skill'} onSubmit={submit}>
        <h2>{skill ? `Edit ${skill.name}` : 'New skill'}</h2>
        <label>Name<input value={d.name} maxLength={64} required placeholder={NAME_HINT} onChange={(e) => setD({ ...d, name: e.target.value })} /></label>
        <label>Description<input value={d.description} maxLength={1024} required placeholder="When the assistant should load this skill" onChange={(e) => setD({ ...d, description: e.target.value })} /></label>
        {!skill && (
          <label>Scope
            <select value={d.scope} onChange={(e) => setD({ ...d, scope: e.target.value as CatalogScope })}>
              <option value="personal">Personal (only me)</option>
              {isAdmin && <option value="tenant">Tenant (everyone)</option>}
            </select>
          </label>
        )}
        <div className="md-split">
          <label className="md-source">Instructions (Markdown)
            <textarea value={d.content} rows={16} spellCheck placeholder={'# How to …\n\n1. First …'} onChange={(e) => setD({ ...d, content: e.target.value })} />
          </label>
          <section className="md-preview" aria-label="Preview">
            <div className="muted small">Preview</div>
            <div className="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(d.content || '*Nothing written yet.*') }} />
          </section>
        </div>
        <SkillFiles key={loadedFor ?? 'new'} files={d.files} onChange={(files) => setD({ ...d, files })} error={fieldErr.files ?? null} />
        {Object.entries(fieldErr).filter(([k]) => k && k !== 'files').map(([k, m]) => <p key={k} className="error small" role="alert">{k}: {m}</p>)}
        <div className="row-buttons">
          <button type="submit" className="primary" disabled={busy || !d.name.trim() || !d.description.trim() || !d.content.trim()}>{skill ? 'Save new version' : 'Create skill'}</button>
          {skill && (confirm ? (
            <>
              <span className="small">Delete this skill and its versions?</span>
              <button type="button" className="link danger" disabled={busy} onClick={() => {
                void run(async () => { await api(`/v1/skills/${encodeURIComponent(skill.id)}`, { method: 'DELETE' }); invalidate('/v1/skills'); onSaved(null); }, 'delete');
              }}>Yes, delete</button>
              <button type="button" className="link" onClick={() => setConfirm(false)}>Keep</button>
            </>
          ) : <button type="button" className="link danger" onClick={() => setConfirm(true)}>Delete skill</button>)}
        </div>
        {error && <p className="error small" role="alert">{error}</p>}
        {skill && <p className="muted small">Version {full.data?.version ?? skill.version} · SHA-256 <code>{(full.data?.sha256 ?? skill.sha256).slice(0, 16)}…</code></p>}
      </form>
      {skill && <Versions key={`${skill.id}-${full.data?.version ?? skill.version}`} skill={full.data ?? skill} />}
    </div>
  );
}

export default function SkillsPage() {
  const me = useQuery<ProfileView>('/v1/user/me');
  const skills = useFreshQuery<unknown>('/v1/skills');
  const [selected, setSelected] = useState<string | null>(null);
  const isAdmin = me.data?.roles.includes('admin') ?? false;
  const items = listOf<SkillView>(skills.data);
  const current = items.find((s) => s.id === selected) ?? null;
  const editable = (s: SkillView): boolean => s.editable ?? (s.scope === 'personal' || isAdmin);
  if (notAvailable(skills.error)) {
    return <div className="page catalog-page"><h1>Skills</h1><p className="muted" role="status">Skills are not available on this server yet.</p></div>;
  }
  return (
    <div className="page catalog-page">
      <h1>Skills</h1>
      <p className="muted">A skill is know-how the assistant loads when a task needs it. It sees every skill's name and description, and reads the instructions only when it uses one; the receipt names the version by its hash.</p>
      <div className="catalog-grid skills">
        <section aria-label="Skills list">
          <div className="row-buttons"><button type="button" onClick={() => setSelected(null)} aria-pressed={selected === null}>New skill</button></div>
          {skills.error && <p className="error" role="alert">Skills could not be loaded: {skills.error.message}</p>}
          {!skills.loading && !skills.error && items.length === 0 && <div className="empty-box"><p className="muted">No skills yet.</p></div>}
          <ul className="catalog-list" aria-label="Skills">
            {items.map((s) => (
              <li key={s.id} className={`card catalog-item${s.id === selected ? ' on' : ''}`} aria-label={`Skill ${s.name}`}>
                <div className="catalog-head"><strong>{s.name}</strong><span className={`scope scope-${s.scope}`}>{s.scope}</span><span className="muted small">v{s.version}</span></div>
                <p className="small">{s.description}</p>
                {editable(s) && <button type="button" className="link" onClick={() => setSelected(s.id)} aria-label={`Open skill ${s.name}`}>Open</button>}
              </li>
            ))}
          </ul>
        </section>
        <Editor key={current?.id ?? 'new'} skill={current} isAdmin={isAdmin} onSaved={(s) => setSelected(s?.id ?? null)} />
      </div>
    </div>
  );
}
