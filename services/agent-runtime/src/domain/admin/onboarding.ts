/**
 * The first-run checklist (issue 13 item 8; spec "Agent runtime surfaces": `/v1/admin/onboarding/*`):
 * admin created, provider and default model, embedding model, sandbox image, phone paired, backup
 * set, each with its live state (`done`, `todo`, `warning`), a sentence saying why, and a link to
 * the page that fixes it. The phone item asks the auth service for the admin's own paired phones
 * (issue 14). Backups (issue 19) are not built yet: that item stays `todo` with "not available yet".
 */
import type { OnboardingChecklist, OnboardingItem } from '../../contracts.js';
import type { AdminPeers, PeerAnswer } from './ports.js';

/** Who asks (the admin). */
export interface OnboardingCaller { id: string; email?: string; display_name?: string }

type Items = { items: Array<Record<string, unknown>> };

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** Provider and default model, from the router's registry (pure). */
export function providerItem(providers: PeerAnswer<Items>, roles: PeerAnswer<Items>): OnboardingItem {
  const base = { id: 'provider_default_model' as const, title: 'Inference provider and default model', fix: { label: 'Providers & roles', href: '/admin/providers' } };
  if (!roles.ok) return { ...base, state: 'warning', detail: `The inference router did not answer: ${roles.error}` };
  const def = roles.body.items.find((r) => r.role === 'default');
  const targets = Array.isArray(def?.targets) ? def.targets as Array<Record<string, unknown>> : [];
  if (def?.configured === true && targets.length) {
    const t = targets[0]!;
    const provider = providers.ok ? providers.body.items.find((p) => p.id === t.provider_id) : undefined;
    const from = str(provider?.name) ?? str(t.provider_id) ?? '?';
    return { ...base, state: 'done', detail: `The default role answers with ${str(t.model) ?? '?'} from ${from}${targets.length > 1 ? ` (+${targets.length - 1} fallback)` : ''}.` };
  }
  const usable = providers.ok ? providers.body.items.filter((p) => p.kind === 'remote' || (Array.isArray(p.models) && p.models.length > 0)) : [];
  if (usable.length) return { ...base, state: 'warning', detail: `${usable.length} provider${usable.length === 1 ? '' : 's'} registered, but the default role is not mapped to a model: chat cannot answer yet.` };
  return { ...base, state: 'todo', detail: 'No inference provider is registered: add one (a local engine model or an OpenAI-compatible endpoint) and map the default role.' };
}

/** Embedding model, from the knowledge and memory status (pure). */
export function embeddingItem(knowledge: PeerAnswer<Record<string, unknown>>, memory: PeerAnswer<Record<string, unknown>>): OnboardingItem {
  const base = { id: 'embedding_model' as const, title: 'Embedding model', fix: { label: 'Services', href: '/admin/services' } };
  const sources = [['knowledge', knowledge], ['memory', memory]] as const;
  const answered = sources.filter(([, a]) => a.ok) as Array<readonly [string, { ok: true; body: Record<string, unknown> }]>;
  if (!answered.length) return { ...base, state: 'warning', detail: `Neither knowledge nor memory answered: ${knowledge.ok ? '' : knowledge.error}` };
  const off = answered.filter(([, a]) => a.body.dense_enabled !== true);
  if (!off.length) {
    const emb = (answered[0]![1].body.embedder ?? {}) as Record<string, unknown>;
    const model = str(emb.model);
    return { ...base, state: 'done', detail: `Meaning-based search is on${model ? ` with ${model}` : ''}${typeof emb.dims === 'number' ? ` (${emb.dims} dimensions)` : ''}.` };
  }
  const loading = off.some(([, a]) => (a.body.embedder as Record<string, unknown> | undefined)?.state === 'loading');
  const reasons = off.map(([name, a]) => [name, str(a.body.dense_reason) ?? 'dense search is off'] as const);
  // One reason said once when both services give it (they share the embedder).
  const why = new Set(reasons.map(([, r]) => r)).size === 1 && reasons.length > 1
    ? `${reasons.map(([n]) => n).join(' and ')}: ${reasons[0]![1]}`
    : reasons.map(([n, r]) => `${n}: ${r}`).join('; ');
  if (loading) return { ...base, state: 'warning', detail: `The embedding model is loading (${why}).` };
  return { ...base, state: off.length === answered.length ? 'todo' : 'warning', detail: `Keyword search only. ${why}` };
}

/** Sandbox image, from the sandbox's readiness (pure). */
export function sandboxItem(readiness: PeerAnswer<Record<string, unknown>>): OnboardingItem {
  const base = { id: 'sandbox_image' as const, title: 'Code sandbox image', fix: { label: 'Sandbox', href: '/admin/sandbox' } };
  if (!readiness.ok) return { ...base, state: 'warning', detail: `The sandbox did not answer: ${readiness.error}` };
  const r = readiness.body;
  const fix = str(r.fix);
  if (r.docker === 'ok' && r.image === 'ok') return { ...base, state: 'done', detail: `The sandbox image is built; sessions run under ${str(r.runtime) ?? 'the container runtime'}.` };
  if (r.docker !== 'ok') return { ...base, state: 'warning', detail: `Docker is not available to the sandbox.${fix ? ` To fix, run: ${fix}` : ''}` };
  return { ...base, state: 'todo', detail: `The sandbox image is ${str(r.image) ?? 'unknown'}.${fix ? ` To build it, run: ${fix}` : ''}` };
}

/** The phone item: done when the admin has a paired phone, else todo with a link to pair one. */
function phoneItem(devices: PeerAnswer<{ items: Array<Record<string, unknown>> }> | null): OnboardingItem {
  const base = { id: 'phone_paired', title: 'Phone paired', fix: { label: 'Pair a phone', href: '/account' } } as const;
  if (!devices) return { ...base, state: 'todo', detail: 'No auth service to ask about paired phones.' };
  if (!devices.ok) return { ...base, state: 'warning', detail: `The auth service did not answer: ${devices.error}` };
  const paired = devices.body.items.filter((d) => d.state === 'paired').length;
  if (paired) return { ...base, state: 'done', detail: `${paired} phone${paired > 1 ? 's are' : ' is'} paired with your account as a second factor.` };
  return { ...base, state: 'todo', detail: 'Pair a phone to approve sign-ins by number matching, with an offline code when it cannot reach this computer.' };
}

/** The checklist over the peers. */
export class OnboardingChecklistService {
  constructor(private readonly peers: AdminPeers, private readonly now: () => Date = () => new Date()) {}

  /** The checklist now, for the admin `caller` whose stamped headers are `as`. Never throws for a peer's failure. */
  async checklist(caller: OnboardingCaller, as: Record<string, string>): Promise<OnboardingChecklist> {
    const p = this.peers;
    const [providers, roles, knowledge, memory, sandbox, devices] = await Promise.all([
      p.providers(as), p.modelRoles(as), p.knowledgeStatus(as), p.memoryStatus(as), p.sandboxReadiness(), p.devices ? p.devices(as) : Promise.resolve(null),
    ]);
    const items: OnboardingItem[] = [
      {
        id: 'admin_created', title: 'Admin account', state: 'done',
        detail: `An admin account exists: you are signed in as ${caller.email ?? caller.display_name ?? caller.id} with the admin role.`,
        fix: { label: 'Users', href: '/admin/users' },
      },
      providerItem(providers, roles),
      embeddingItem(knowledge, memory),
      sandboxItem(sandbox),
      phoneItem(devices),
      { id: 'backup_set', title: 'Backup set', state: 'todo', detail: 'Not available yet: backups arrive with issue 19.', fix: null },
    ];
    return { items, done: items.filter((i) => i.state === 'done').length, total: items.length, checked_at: this.now().toISOString() };
  }
}
