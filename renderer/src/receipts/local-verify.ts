/**
 * Verification of a receipt bundle in the reviewer's browser (issue 22 item 5; docs/receipt-format-v2.md).
 * No server is involved: the bundle is a file the reviewer opened, the public keys are ones the
 * reviewer pinned (pasted JWKs, or keys picked from the server's published set and then kept in
 * this browser's local storage), and the checks are the audit verifier's own code
 * (`services/audit/src/verifier`, Node-free) with Ed25519 from WebCrypto, or @noble/ed25519 where
 * the engine lacks WebCrypto Ed25519.
 */
import { verifyAsync as nobleVerify } from '@noble/ed25519';
// The audit verifier is Node-free by design (its index.ts) and is reused here rather than copied, so the
// browser runs the very Merkle/JCS/check code the CLI runs (issue 22 item 5).
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the one deliberate exception to "contracts only"
import {
  checkJsonText, parsePublicKeys, refusedPublicReport, sha256Pure, toHex, verifyReceiptJsonPublic, VERIFIER_LIMITS,
  type Ed25519Verify, type PinnedKey, type PublicVerificationReport,
} from '../../../services/audit/src/verifier/index.js';

/** A key the reviewer pinned, as kept in local storage. */
export interface StoredPin { kid: string; x: string; created_at?: string; retired_at?: string; pinned_at: string; source: 'pasted' | 'published' }

/** The local storage key of the pinned receipt keys. */
export const PIN_STORAGE_KEY = 'svc.receipts.pinnedKeys.v1';

/** The pinned keys of this browser (malformed storage reads as none). */
export function loadPins(storage: Storage = localStorage): StoredPin[] {
  try {
    const v = JSON.parse(storage.getItem(PIN_STORAGE_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((p): p is StoredPin => typeof p === 'object' && p !== null && typeof (p as StoredPin).kid === 'string' && typeof (p as StoredPin).x === 'string') : [];
  } catch { return []; }
}

/** Save the pinned keys. */
export function savePins(pins: readonly StoredPin[], storage: Storage = localStorage): void {
  storage.setItem(PIN_STORAGE_KEY, JSON.stringify(pins));
}

/**
 * Pin keys from JSON text (one JWK, a list, or `{keys: [...]}`): each is validated (Ed25519, kid =
 * RFC 7638 thumbprint) and added unless already pinned. @returns the new list.
 * @throws Error naming what is wrong with the text.
 */
export function pinFromText(text: string, pins: readonly StoredPin[], source: StoredPin['source'], now: Date = new Date()): StoredPin[] {
  let json: unknown;
  try { json = JSON.parse(text); } catch { throw new Error('not JSON: paste a public JWK such as {"kty":"OKP","crv":"Ed25519","x":"..."}'); }
  const parsed = parsePublicKeys(json);
  const out = [...pins];
  for (const k of parsed.values()) {
    if (out.some((p) => p.kid === k.kid)) continue;
    out.push({ kid: k.kid, x: k.x, ...(k.created_at ? { created_at: k.created_at } : {}), ...(k.retired_at ? { retired_at: k.retired_at } : {}), pinned_at: now.toISOString(), source });
  }
  return out;
}

/** SHA-256 hex of the raw public key: the fingerprint the admin Keys tab shows and an organisation distributes. */
export function fingerprintOf(x: string): string {
  const k = parsePublicKeys({ kty: 'OKP', crv: 'Ed25519', x }).values().next().value as PinnedKey;
  return toHex(sha256Pure(k.raw));
}

/** Which Ed25519 implementation ran. */
export type Ed25519Engine = 'WebCrypto' | '@noble/ed25519';

let engine: Promise<Ed25519Engine> | null = null;

/** Whether this engine's WebCrypto verifies Ed25519 (probed once, with an import of a fixed key). */
export function ed25519Engine(): Promise<Ed25519Engine> {
  engine ??= (async () => {
    try {
      const probe = new Uint8Array(32);
      probe[0] = 1;
      await crypto.subtle.importKey('raw', probe, { name: 'Ed25519' }, false, ['verify']);
      return 'WebCrypto' as const;
    } catch { return '@noble/ed25519' as const; }
  })();
  return engine;
}

/** Ed25519 verify through WebCrypto, else @noble/ed25519. */
export const browserEd25519: Ed25519Verify = async (publicKey, message, signature) => {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  if (await ed25519Engine() === 'WebCrypto') {
    const key = await crypto.subtle.importKey('raw', publicKey as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
    return crypto.subtle.verify({ name: 'Ed25519' }, key, signature as Uint8Array<ArrayBuffer>, message as Uint8Array<ArrayBuffer>);
  }
  return nobleVerify(signature, message, publicKey);
};

/** The outcome of a local verification. */
export interface LocalVerification { report: PublicVerificationReport; engine: Ed25519Engine; ms: number }

/**
 * Verify bundle text locally against the pinned keys.
 * @throws Error when no key is pinned or the text is not a JSON bundle (a report cannot be made).
 */
export async function verifyLocally(text: string, pins: readonly StoredPin[]): Promise<LocalVerification> {
  if (pins.length === 0) throw new Error('pin a public key first');
  const started = performance.now();
  // Measured before JSON.parse, as the CLI does (issue 11 item 4): too deep or too large is a verdict.
  const refused = checkJsonText(text, VERIFIER_LIMITS, 'bundle');
  if (refused) return { report: refusedPublicReport(refused), engine: await ed25519Engine(), ms: performance.now() - started };
  let bundle: unknown;
  try { bundle = JSON.parse(text); } catch { throw new Error('the file is not JSON; open an exported receipt bundle'); }
  const publicKeys = parsePublicKeys(pins.map((p) => ({ kty: 'OKP', crv: 'Ed25519', x: p.x, kid: p.kid })));
  const report = await verifyReceiptJsonPublic({ bundle }, { publicKeys, ed25519: browserEd25519 });
  return { report, engine: await ed25519Engine(), ms: performance.now() - started };
}
