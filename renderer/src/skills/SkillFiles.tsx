/**
 * A skill's optional files (issue 17 item 2 and 6: SKILL.md packs carry files beside the body, e.g.
 * `reference/clauses.md`, `scripts/check.py`): `files: [{path, content}]` in `POST`/`PUT
 * /v1/skills` and in the skill view. Add, rename, edit and remove files; the open file is previewed
 * (Markdown rendered by the chat's renderer for `.md`, else shown as text). The server validates
 * paths (relative, no `..`); its error is shown under the list.
 */
import { useState } from 'react';
import { renderMarkdown } from '../chat/markdown';

/** One file of a skill. */
export interface SkillFile { path: string; content: string }

/** Props of `SkillFiles`. */
export interface SkillFilesProps {
  files: SkillFile[];
  onChange: (files: SkillFile[]) => void;
  error?: string | null;
}

function freePath(files: SkillFile[]): string {
  for (let i = 1; ; i++) {
    const p = i === 1 ? 'reference.md' : `reference-${i}.md`;
    if (!files.some((f) => f.path === p)) return p;
  }
}

/** The files list with an editor and preview for the open one. */
export function SkillFiles({ files, onChange, error }: SkillFilesProps) {
  const [open, setOpen] = useState<number | null>(files.length ? 0 : null);
  const cur = open !== null && open < files.length ? files[open]! : null;
  const edit = (i: number, f: Partial<SkillFile>): void => onChange(files.map((x, j) => (j === i ? { ...x, ...f } : x)));
  return (
    <section className="skill-files" aria-label="Skill files">
      <div className="catalog-head">
        <strong>Files</strong><span className="muted small">optional: references, templates, scripts the skill's instructions name</span>
        <button type="button" className="link" onClick={() => { onChange([...files, { path: freePath(files), content: '' }]); setOpen(files.length); }}>Add file</button>
      </div>
      {files.length > 0 && (
        <div className="row-buttons" role="tablist" aria-label="Open file">
          {files.map((f, i) => (
            <button key={i} type="button" role="tab" aria-selected={i === open} className={i === open ? 'primary' : 'link'} onClick={() => setOpen(i)}>{f.path || '(no name)'}</button>
          ))}
        </div>
      )}
      {cur && open !== null && (
        <div className="skill-file" aria-label={`File ${cur.path}`}>
          <div className="form-pair">
            <label>File path<input value={cur.path} placeholder="reference/notes.md" onChange={(e) => edit(open, { path: e.target.value })} /></label>
            <div className="row-buttons">
              <button type="button" className="link danger" onClick={() => { onChange(files.filter((_, j) => j !== open)); setOpen(files.length > 1 ? 0 : null); }}>Remove file</button>
            </div>
          </div>
          <div className="md-split">
            <label className="md-source">File content<textarea value={cur.content} rows={10} onChange={(e) => edit(open, { content: e.target.value })} /></label>
            <section className="md-preview" aria-label="Rendered file">
              <div className="muted small">Preview</div>
              {/\.(md|markdown)$/i.test(cur.path)
                ? <div className="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(cur.content || '*Empty file.*') }} />
                : <pre className="small">{cur.content}</pre>}
            </section>
          </div>
        </div>
      )}
      {error && <p className="error small" role="alert">{error}</p>}
    </section>
  );
}
