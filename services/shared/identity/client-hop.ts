/**
 * The gateway's hop proof: which client address a request came from, signed by the gateway
 * (issue 11 item 2, "The auth service trusts the gateway, not the caller").
 *
 * A service never believes `X-Forwarded-For` or `X-Real-IP`: anyone who reaches its port directly
 * can write them. The gateway instead sends `X-Svc-Client` on every forwarded request, a stamp of
 * the same wire form as `X-Svc-Principal` (`b64url(JCS(payload)).b64url(HMAC-SHA256)`, see
 * principal.ts) over `{typ: "svc-client", ip, exp}`, valid for `CLIENT_HOP_LIFETIME_SECONDS`.
 *
 * Its keys are derived from `SVC_PRINCIPAL_KEYS` (HMAC-SHA256(key, "svc-client-hop/v1") per key,
 * newest first), so no new secret is configured, yet a hop stamp can never pass as a principal nor
 * a principal as a hop stamp (domain separation). A service takes the client address from a valid
 * hop stamp and otherwise from the TCP peer (`socket.remoteAddress`); a request without a valid hop
 * stamp did not come through the gateway.
 */
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { StampVerifier, signStamp } from './principal.js';

/** Request header carrying the gateway's hop stamp. */
export const CLIENT_HOP_HEADER = 'x-svc-client';

/** Lifetime of a hop stamp, seconds: long enough for a slow upstream queue, short for replay. */
export const CLIENT_HOP_LIFETIME_SECONDS = 60;

/** `typ` of a hop stamp's payload. */
const HOP_TYPE = 'svc-client';

/** Label the hop keys are derived with (change it to invalidate every hop stamp at once). */
const HOP_KEY_LABEL = 'svc-client-hop/v1';

/** Re-sign a cached stamp when fewer than this many seconds remain. */
const RESIGN_MARGIN_SECONDS = 20;

/** Payload of a hop stamp. */
export interface ClientHop {
  typ: typeof HOP_TYPE;
  /** The client address as the gateway saw it (`req.ip`). */
  ip: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

/** The hop keys derived from the principal keys (same order: newest first). */
export function clientHopKeys(principalKeys: readonly string[]): string[] {
  return principalKeys.map((k) => createHmac('sha256', k).update(HOP_KEY_LABEL, 'utf8').digest('hex'));
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A cheap identity of a key list (length, first and last key): changes whenever a rotation step rewrites it. */
function keyListId(keys: readonly string[]): string {
  return `${keys.length}\u0000${keys[0] ?? ''}\u0000${keys[keys.length - 1] ?? ''}`;
}

/**
 * Signs hop stamps in the gateway, cached per client address (one HMAC per address per ~40 s on
 * the hot path). The cache is bounded: it is emptied when it holds `max` addresses.
 */
export class ClientHopSigner {
  private keys: string[];
  private keysOf: string;
  private readonly cache = new Map<string, { value: string; exp: number }>();

  /**
   * @param principalKeys `SVC_PRINCIPAL_KEYS`, newest first (the first signs).
   * @param clock current time, Unix seconds (test seam).
   */
  constructor(private readonly principalKeys: readonly string[], private readonly clock: () => number = nowSeconds, private readonly max = 10_000) {
    this.keys = clientHopKeys(principalKeys);
    this.keysOf = keyListId(principalKeys);
  }

  /**
   * The `X-Svc-Client` value for client address `ip`, or null when no principal key is configured
   * (then no service believes the request came through the gateway).
   */
  stamp(ip: string): string | null {
    // A principal-key rotation replaces the array's content in place (main/supervisor/keys.ts): follow it live (issue 19).
    const id = keyListId(this.principalKeys);
    if (id !== this.keysOf) { this.keys = clientHopKeys(this.principalKeys); this.keysOf = id; this.cache.clear(); }
    if (this.keys.length === 0) return null;
    const now = this.clock();
    const hit = this.cache.get(ip);
    if (hit && hit.exp - now >= RESIGN_MARGIN_SECONDS) return hit.value;
    const payload: ClientHop = { typ: HOP_TYPE, ip, exp: now + CLIENT_HOP_LIFETIME_SECONDS };
    const value = signStamp(payload, this.keys);
    if (this.cache.size >= this.max) this.cache.clear();
    this.cache.set(ip, { value, exp: payload.exp });
    return value;
  }
}

/** Verifies hop stamps in a service (successful verifications cached until they expire). */
export class ClientHopVerifier {
  private stamps: StampVerifier<ClientHop>;
  private keysOf: string;

  /** @param principalKeys `SVC_PRINCIPAL_KEYS`, newest first (any may verify); followed live when rotated in place. */
  constructor(private readonly principalKeys: readonly string[]) {
    this.stamps = new StampVerifier<ClientHop>(clientHopKeys(principalKeys), 10_000);
    this.keysOf = keyListId(principalKeys);
  }

  /**
   * The client address a valid, unexpired hop stamp carries, or null (absent, forged, expired,
   * malformed, or not an IP address).
   */
  verify(value: string | string[] | undefined, now: number = nowSeconds()): string | null {
    const raw = Array.isArray(value) ? value[0] : value;
    if (raw === undefined) return null;
    const id = keyListId(this.principalKeys);
    if (id !== this.keysOf) { this.stamps = new StampVerifier<ClientHop>(clientHopKeys(this.principalKeys), 10_000); this.keysOf = id; }
    const res = this.stamps.verify(raw, now);
    if (!res.ok) return null;
    const { typ, ip } = res.payload as Partial<ClientHop>;
    return typ === HOP_TYPE && typeof ip === 'string' && isIP(ip) !== 0 ? ip : null;
  }
}

/** Where a request came from, as a service may believe it. */
export interface ClientAddress {
  /** The client address: the gateway's hop stamp's, else the TCP peer's (`"unknown"` when gone). */
  ip: string;
  /** True when a valid gateway hop stamp named it. */
  viaGateway: boolean;
}

/**
 * The client address of a request: from a valid `X-Svc-Client` hop stamp, else the TCP peer.
 * Forwarding headers (`X-Forwarded-For`, `X-Real-IP`, `Forwarded`) are never read.
 * @param hopHeader the request's `x-svc-client` header.
 * @param peer `req.socket.remoteAddress`.
 */
export function clientAddress(hopHeader: string | string[] | undefined, peer: string | undefined, verifier: ClientHopVerifier): ClientAddress {
  const hop = verifier.verify(hopHeader);
  if (hop !== null) return { ip: hop, viaGateway: true };
  return { ip: peer ?? 'unknown', viaGateway: false };
}
