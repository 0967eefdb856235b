/**
 * What the router serves, as clients list it (spec "Inference router"): `GET /v1/models` (every
 * provider's models, then the configured role aliases) and `GET /v1/routes` (each configured role's
 * ordered targets with their health). Pure over the snapshot, the cooldowns and the weight hashes.
 */
import { MODEL_ROLES, type ModelList, type ModelView, type RouteList, type RouteView } from '../contracts.js';
import type { WeightHashes } from './ports.js';
import type { Cooldowns, Snapshot } from './snapshot.js';

/** The model list: concrete models (local ones with their weight hash once known), then roles. */
export function listModels(snap: Snapshot, hashes: WeightHashes): ModelList {
  const data: ModelView[] = [];
  for (const p of snap.providers.values()) {
    const created = p.createdAt ? Math.floor(Date.parse(p.createdAt) / 1000) : 0;
    for (const m of p.models) {
      const v: ModelView = { id: m, object: 'model', created, owned_by: p.name, provider_id: p.id };
      if (p.adapter === 'local') v.weight_hash = hashes.peek(p.paths?.get(m) ?? '');
      data.push(v);
    }
  }
  for (const role of MODEL_ROLES) if (snap.roles.has(role)) data.push({ id: role, object: 'model', created: 0, owned_by: 'svc', provider_id: null, svc_role: true });
  return { object: 'list', data };
}

/** The configured roles' targets with provider name, adapter, availability and cooldown end. */
export function listRoutes(snap: Snapshot, cooldowns: Cooldowns): RouteList {
  const items: RouteView[] = [];
  for (const role of MODEL_ROLES) {
    const targets = snap.roles.get(role);
    if (!targets) continue;
    items.push({
      role, targets: targets.map((t) => {
        const p = snap.providers.get(t.provider_id);
        const b = snap.backend(t);
        const until = b ? cooldowns.coolingUntil(b) : null;
        return {
          ...t, provider_name: p?.name ?? null, adapter: p ? (p.adapter === 'local' ? 'chat_completions' : p.adapter) : null, available: b !== null,
          cooling_down_until: until === null ? null : new Date(until).toISOString(),
        };
      }),
    });
  }
  return { items };
}
