/**
 * Profile (spec "Agent runtime surfaces": `/v1/user/profile` and sub-paths; issue 13 item 2): what
 * the assistant should know about the user (name, time zone, language, preferences), the pending
 * suggestion the assistant made after a chat (Accept merges it into the profile, Dismiss means it is
 * never suggested again), and the user's secrets (SecretsSection).
 */
import { useState, type FormEvent } from 'react';
import { invalidate, prime, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { ProfileDraft, UserProfile } from '../api/types';
import { useAction } from '../app/use-action';
import { describeChange, deviceTimezone, knownTimezones, preferencesOf } from './draft-text';
import { SecretsSection } from './SecretsSection';

const PROFILE = '/v1/user/profile';
const DRAFT = '/v1/user/profile/draft';

function DraftCard({ draft }: { draft: ProfileDraft }) {
  const act = useAction<'accept' | 'dismiss'>();
  const decide = (what: 'accept' | 'dismiss'): void => {
    void act.run(async () => {
      try {
        const answer = await api<UserProfile | undefined>(`${DRAFT}/${what}`, { method: 'POST', json: { id: draft.id } });
        if (answer) prime(PROFILE, answer);
      } catch (err) {
        // A newer suggestion replaced this one: show it instead.
        if (err instanceof ApiError && (err.code === 'profile_draft_changed' || err.code === 'profile_draft_not_found')) { invalidate(DRAFT); return; }
        throw err;
      }
      invalidate(DRAFT);
    }, what);
  };
  return (
    <section className="card profile-draft" data-testid="profile-draft" aria-label="Suggested profile changes">
      <h2>The assistant suggests</h2>
      <p className="muted small">From what you said in a chat{draft.created_at ? ` (${new Date(draft.created_at).toLocaleString()})` : ''}. Nothing changes unless you accept.</p>
      <ul>{draft.changes.map((c, i) => <li key={i}>{describeChange(c)}</li>)}</ul>
      <div className="row-buttons">
        <button type="button" className="primary" data-testid="profile-draft-accept" disabled={act.busy} onClick={() => decide('accept')}>Accept</button>
        <button type="button" data-testid="profile-draft-dismiss" disabled={act.busy} onClick={() => decide('dismiss')}>Dismiss</button>
      </div>
      {act.error && <p className="error small" role="alert">{act.error}</p>}
    </section>
  );
}

/** The form; remounted (keyed by `updated_at`) when the profile changes, so `saved` tells whether this version is the one just saved. */
function ProfileForm({ profile, saved, onSaved }: { profile: UserProfile; saved: boolean; onSaved: (at: string | null) => void }) {
  const [name, setName] = useState(profile.display_name ?? '');
  const [timezone, setTimezone] = useState(profile.timezone ?? '');
  const [language, setLanguage] = useState(profile.language ?? '');
  const [prefs, setPrefs] = useState(profile.preferences.join('\n'));
  const save = useAction();
  const zones = knownTimezones();
  const device = deviceTimezone();
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    onSaved(null);
    void save.run(async () => {
      const body = { display_name: name.trim() || null, timezone: timezone.trim() || null, language: language.trim() || null, preferences: preferencesOf(prefs) };
      const answer = await api<UserProfile>(PROFILE, { method: 'PUT', json: body });
      onSaved(answer.updated_at);
      prime(PROFILE, answer);
    });
  };
  return (
    <form className="card profile-form" data-testid="profile-form" aria-label="Your profile" onSubmit={submit}>
      <label>Display name
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="name" />
      </label>
      <label>Time zone
        <span className="profile-inline">
          <input value={timezone} onChange={(e) => setTimezone(e.target.value)} list="profile-timezones" placeholder="e.g. Europe/Paris" maxLength={64} />
          {device && device !== timezone && <button type="button" className="link" onClick={() => setTimezone(device)}>Use {device}</button>}
        </span>
        <datalist id="profile-timezones">{zones.map((z) => <option key={z} value={z} />)}</datalist>
      </label>
      <label>Language
        <input value={language} onChange={(e) => setLanguage(e.target.value)} placeholder="e.g. en-GB" maxLength={35} list="profile-languages" />
        <datalist id="profile-languages">{[...new Set(navigator.languages ?? [])].map((l) => <option key={l} value={l} />)}</datalist>
      </label>
      <label><span>What the assistant should know about you <span className="muted small">(one per line)</span></span>
        <textarea value={prefs} onChange={(e) => setPrefs(e.target.value)} rows={Math.min(12, Math.max(4, prefs.split('\n').length + 1))} placeholder="e.g. Prefers metric units" />
      </label>
      <div className="row-buttons">
        <button type="submit" className="primary" data-testid="profile-save" disabled={save.busy}>Save</button>
        {saved && !save.busy && <span className="ok small" role="status">Saved.</span>}
        {profile.updated_at && <span className="muted small">Last changed {new Date(profile.updated_at).toLocaleString()}</span>}
      </div>
      {save.error && <p className="error small" role="alert">{save.error}</p>}
    </form>
  );
}

export default function ProfilePage() {
  const profile = useQuery<UserProfile>(PROFILE);
  const draft = useQuery<{ draft: ProfileDraft | null }>(DRAFT);
  const [savedAt, setSavedAt] = useState<string | null>(null);
  return (
    <div className="page profile-page">
      <h1>Profile</h1>
      <p className="muted">The assistant sees this profile in every chat (within a small budget). It may suggest changes from what you tell it; you decide.</p>
      {draft.data?.draft && <DraftCard draft={draft.data.draft} />}
      {profile.error && <p className="error" role="alert">{profile.error.message}</p>}
      {profile.data && <ProfileForm key={profile.data.updated_at ?? 'new'} profile={profile.data} saved={savedAt !== null && savedAt === profile.data.updated_at} onSaved={setSavedAt} />}
      <SecretsSection />
    </div>
  );
}
