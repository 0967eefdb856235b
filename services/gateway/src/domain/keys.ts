/**
 * `/v1/admin/secrets` use cases (issue 19 item 3) over the supervisor's key channel (the injected
 * `KeyAdmin` port): list every kind's key versions, rotate one kind.
 *
 * Errors (DomainError): `key_kind_unknown` (404) for a kind outside principal, captoken, audit,
 * receipt; `not_found` for another path or method under `/v1/admin/secrets`; `service_unavailable`
 * when no supervisor runs the stack or the supervisor could not rotate.
 */
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import { isKeyKind, type KeyAdmin, type KeyAdminAnswer } from '../../../shared/key-admin.js';
import type { SecretsListing, SecretsRotated } from '../contracts/keys.js';

const ROTATE = /^\/v1\/admin\/secrets\/([^/]+)\/rotate$/;

function unwrap(a: KeyAdminAnswer): SecretsListing {
  if (a.ok) return { kinds: a.kinds };
  throw new DomainError(a.code === 'key_kind_unknown' ? 'key_kind_unknown' : 'service_unavailable', a.message);
}

/**
 * Answer one `/v1/admin/secrets*` request.
 * @param port the key channel, absent when the gateway runs without a supervisor.
 * @param clock the time of a rotation (test seam).
 * @returns the listing (GET) or the rotation's answer (POST .../rotate).
 */
export async function secretsRequest(port: KeyAdmin | undefined, method: string, path: string, clock: () => Date = () => new Date()): Promise<SecretsListing | SecretsRotated> {
  const p = path.replace(/\/+$/, '');
  if (method === 'GET' && p === '/v1/admin/secrets') return unwrap(await need(port)({ op: 'list' }));
  const m = ROTATE.exec(p);
  if (method === 'POST' && m) {
    const kind = decodeURIComponent(m[1]!);
    if (!isKeyKind(kind)) throw new DomainError('key_kind_unknown', `no key kind "${kind}"; use principal, captoken, audit or receipt`);
    const rotatedAt = clock().toISOString();
    const listing = unwrap(await need(port)({ op: 'rotate', kind }));
    const active = listing.kinds.find((k) => k.kind === kind)?.versions.find((v) => v.active);
    return { kind, version: active?.version ?? '', rotated_at: rotatedAt, kinds: listing.kinds };
  }
  throw notFoundError(`no route for ${method} ${path}`);
}

function need(port: KeyAdmin | undefined): KeyAdmin {
  if (!port) throw new DomainError('service_unavailable', 'key rotation needs the supervisor that runs the stack');
  return port;
}
