/**
 * Admin → Onboarding (issue 13 item 8; `GET /v1/admin/onboarding/checklist`): the first-run
 * checklist — admin created, provider and default model, embedding model, sandbox image, phone
 * paired, backup set — each with its live state, why, and a link to the page that fixes it.
 * Refreshed every 5 s while shown.
 */
import { useQuery } from '../api/cache';
import type { OnboardingChecklist } from '../api/types';
import { Link } from '../app/Link';
import { usePoll } from './admin-live';

const MARK = { done: '✓', todo: '○', warning: '!' } as const;
const LABEL = { done: 'Done', todo: 'To do', warning: 'Needs attention' } as const;

export function OnboardingPanel() {
  const q = useQuery<OnboardingChecklist>('/v1/admin/onboarding/checklist');
  usePoll(q.refetch);
  const c = q.data;
  return (
    <div className="panel onboarding" data-testid="onboarding">
      {q.error && <p className="notice error" role="alert">{q.error.message}</p>}
      {!c && q.loading && <p className="muted">Loading…</p>}
      {c && (
        <>
          <p className="muted">{c.done} of {c.total} done.</p>
          <progress max={c.total} value={c.done} aria-label="Checklist progress" />
          <ol className="onboarding-list">
            {c.items.map((i) => (
              <li key={i.id} className={`card onboarding-item ob-${i.state}`} data-testid="onboarding-item" data-id={i.id} data-state={i.state}>
                <span className={`ob-mark ob-${i.state}`} aria-hidden="true">{MARK[i.state]}</span>
                <div className="ob-body">
                  <h3>{i.title} <span className="sr-only">({LABEL[i.state]})</span><span className={`state ob-state-${i.state}`} aria-hidden="true">{LABEL[i.state]}</span></h3>
                  <p className="small">{i.detail}</p>
                </div>
                {i.fix && i.state !== 'done' && <Link to={i.fix.href} className="ob-fix small">{i.fix.label}</Link>}
                {i.fix && i.state === 'done' && <Link to={i.fix.href} className="small muted">{i.fix.label}</Link>}
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
