/**
 * `scripts/svc-verify`: offline verification of a receipt (spec "Offline verification"; DESIGN.md
 * "Receipt format v1").
 *
 * Usage:
 *   svc-verify --receipt detail.json --proof proof.json --key-version v1 --key "$AUDIT_SIGNING_KEY"
 *   svc-verify --bundle bundle.json --key-version v2 --key K2 --key-version v1 --key K1
 *   svc-verify --receipt bundle.json --proof bundle.json ...   (one bundle file for both)
 *
 * `--key-version` / `--key` pairs may repeat (rotation). `--key-file F` reads a key from a file
 * instead (keeps it out of the process list); `--json` prints the report as JSON.
 * Prints each check with PASS/FAIL; exit 0 only when every check holds, 1 when one fails, 2 on
 * usage or input errors. The result holds only against the exported proof, suffix and keys given.
 *
 * Without the secret (issue 22 item 4; docs/receipt-format-v2.md):
 *   svc-verify --receipt bundle.json --public-key receipt-key.jwk.json
 *   svc-verify --receipt bundle.json --public-key https://workstation.example/v1/receipts/keys
 * checks events -> leaves -> Merkle root -> the envelope's Ed25519 signature under its kid, the
 * anchor, chain continuity and the checkpoint note; prints PASS / FAIL / SKIP per check and which
 * it could not make (the HMACs, unless `--key` is given too); exit 0 only when all it could check holds.
 *
 * Reads receipt format v1, v1.1 and v2 (docs/receipts.md): in a v1.1 proof, other principals' suffix
 * rows are redacted and checked by link only; the output says how many rows were checked in full
 * and how many by link. An input file over 256 MiB or nested deeper than 256 levels (also inside a
 * signed payload) is refused with a NOT VERIFIED verdict naming `INPUT_TOO_LARGE` /
 * `INPUT_TOO_DEEP` (exit 1), never a crash (issue 11 item 4).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeHashProvider } from '../services/audit/src/domain/keys.js';
import {
  checkJsonText, isBundleShape, normaliseInput, parsePublicKeys, refusedPublicReport, refusedReport, VERIFIER_LIMITS, VerificationError,
  verifyBundlePublicSync, verifyReceiptJson, type PinnedKey, type PublicVerificationReport, type VerificationReport,
} from '../services/audit/src/verifier/index.js';
import { fetchKeySet, isKeysUrl, nodeEd25519Verify } from './svc-verify-keys.js';

/**
 * Parsed command line. `publicKeys` are JWK / key-set files or keys URLs (issue 22 item 4); with
 * them the HMAC keys are optional.
 */
export interface CliArgs { receipt?: string; proof?: string; bundle?: string; keys: Map<string, string>; publicKeys: string[]; json: boolean }

/**
 * I/O the CLI uses (injected by tests). `fileSize` (bytes), when given, lets an oversized file be
 * refused before it is read.
 */
export interface CliIo { readFile(path: string): string; out(line: string): void; err(line: string): void; fileSize?(path: string): number }

const USAGE = 'usage: svc-verify (--bundle F | --receipt F --proof F) [--public-key JWK_FILE|KEYS_URL ...] [--key-version LABEL (--key K | --key-file F) ...] [--json]\n'
  + '  give --public-key (no secret needed), or --key-version/--key pairs, or both';

/** Parse argv (without node and script). @throws Error with a usage message. */
export function parseArgs(argv: readonly string[], io: Pick<CliIo, 'readFile'>): CliArgs {
  const out: CliArgs = { keys: new Map(), publicKeys: [], json: false };
  let pendingVersion: string | null = null;
  const pendingKeys: string[] = [];
  const versions: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value\n${USAGE}`);
      return v;
    };
    switch (name) {
      case '--receipt': out.receipt = value(); break;
      case '--proof': out.proof = value(); break;
      case '--bundle': out.bundle = value(); break;
      case '--json': out.json = true; break;
      case '--public-key': out.publicKeys.push(value()); break;
      case '--key-version': pendingVersion = value(); versions.push(pendingVersion); break;
      case '--key': pendingKeys.push(value()); break;
      case '--key-file': pendingKeys.push(io.readFile(value()).replace(/\r?\n$/, '')); break;
      case '-h': case '--help': throw new Error(USAGE);
      default: throw new Error(`unknown argument ${a}\n${USAGE}`);
    }
  }
  if (versions.length !== pendingKeys.length || (versions.length === 0 && out.publicKeys.length === 0)) {
    throw new Error(`give --public-key, or one --key (or --key-file) per --key-version\n${USAGE}`);
  }
  versions.forEach((v, i) => out.keys.set(v, pendingKeys[i]!));
  // One exported bundle serves as both: `--receipt bundle.json` (or `--proof bundle.json`) alone.
  if (!out.bundle && !(out.receipt && out.proof)) {
    const single = out.receipt ?? out.proof;
    if (!single) throw new Error(`give --bundle, or --receipt and --proof (one bundle file may serve as both)\n${USAGE}`);
    out.bundle = single;
  }
  return out;
}

/** Input the verifier refuses before parsing (too large or too deep): carries the verdict's error. */
class RefusedInput extends Error {
  constructor(readonly error: VerificationError) { super(error.message); }
}

function readJson(io: CliIo, path: string): unknown {
  const size = io.fileSize?.(path);
  if (size !== undefined && size > VERIFIER_LIMITS.maxBytes) {
    throw new RefusedInput(new VerificationError('INPUT_TOO_LARGE', `${path} is ${size} bytes, more than ${VERIFIER_LIMITS.maxBytes}; refused`));
  }
  const text = io.readFile(path);
  // Measured iteratively before JSON.parse and anything recursive (issue 11 item 4).
  const refused = checkJsonText(text, VERIFIER_LIMITS, path);
  if (refused) throw new RefusedInput(refused);
  try { return JSON.parse(text); } catch { throw new Error(`${path} is not JSON`); }
}

/** Format a report as the lines the CLI prints. */
export function formatReport(r: VerificationReport): string[] {
  const lines = [`receipt for turn ${r.turn_id ?? '(unknown)'}`];
  for (const c of r.checks) {
    lines.push(`${c.ok ? 'PASS' : 'FAIL'}  ${c.id.padEnd(18)} ${c.title}: ${c.detail}`);
    const refused = [...new Set(c.errors.map((e) => e.code).filter((code) => code === 'INPUT_TOO_DEEP' || code === 'INPUT_TOO_LARGE'))];
    if (refused.length > 0) lines.push(`      refused: ${refused.join(', ')}`);
  }
  const s = r.suffix;
  if (s && s.redacted > 0) {
    lines.push(`suffix (format ${s.format}): ${s.rows} rows, ${s.full} checked in full (HMAC and links), ${s.redacted} redacted rows of other principals checked by link only`
      + (s.redacted_tail > 0 ? `; the last ${s.redacted_tail} follow the last full row, so nothing in this export pins them` : ''));
  }
  lines.push(r.ok ? 'VERIFIED: every check holds (against this proof, this suffix and the supplied keys)' : 'NOT VERIFIED: at least one check failed');
  return lines;
}

/** Lines of a public-key report: each check PASS / FAIL / SKIP, then what was and was not checked. */
export function formatPublicReport(r: PublicVerificationReport): string[] {
  const lines = [`receipt for turn ${r.turn_id ?? '(unknown)'} (public-key verification)`];
  for (const c of r.checks) lines.push(`${c.skipped ? 'SKIP' : c.ok ? 'PASS' : 'FAIL'}  ${c.id.padEnd(18)} ${c.title}: ${c.detail}`);
  if (r.checkpoint) lines.push(`checkpoint: ${r.checkpoint.origin} seq ${r.checkpoint.size}${r.checkpoint.timestamp ? ` at ${r.checkpoint.timestamp}` : ''}`);
  lines.push(`checked: ${r.checked.join(', ') || '(none)'}`);
  lines.push(`could not check: ${r.not_checked.join(', ') || '(none)'}`);
  lines.push(r.ok ? 'VERIFIED: every check that could be made holds (against this bundle and the pinned public keys)'
    : 'NOT VERIFIED: a check failed, or no envelope signature could be checked');
  return lines;
}

/**
 * Run the CLI. `fetched` holds the text of keys URLs fetched beforehand (`runCliAsync`); a
 * `--public-key` that is not in it is read as a file.
 * @returns the exit code (0 verified, 1 not verified, 2 usage/input error).
 */
export function runCli(argv: readonly string[], io: CliIo, fetched: ReadonlyMap<string, string> = new Map()): number {
  let args: CliArgs;
  let json = false;
  let publicMode = false;
  let input: { bundle: unknown } | { detail: unknown; proof: unknown };
  try {
    args = parseArgs(argv, io);
    json = args.json;
    publicMode = args.publicKeys.length > 0;
    if (args.bundle) {
      const bundle = readJson(io, args.bundle);
      if (!isBundleShape(bundle)) throw new Error(`${args.bundle} is not an exported bundle {detail, proof}; give --receipt and --proof`);
      input = { bundle };
    }
    else {
      const receipt = readJson(io, args.receipt!);
      const proof = args.proof === args.receipt ? receipt : readJson(io, args.proof!);
      if (isBundleShape(receipt)) input = { bundle: receipt };
      else if (isBundleShape(proof)) input = { bundle: proof };
      else input = { detail: receipt, proof };
    }
  } catch (err) {
    if (err instanceof RefusedInput) return publicMode ? printPublic(refusedPublicReport(err.error), json, io) : printReport(refusedReport(err.error), json, io);
    io.err(err instanceof Error ? err.message : String(err));
    return 2;
  }
  if (args.publicKeys.length === 0) return printReport(verifyReceiptJson(input, { keys: args.keys, hash: nodeHashProvider }), json, io);
  const ring = new Map<string, PinnedKey>();
  try {
    for (const src of args.publicKeys) {
      const text = fetched.get(src) ?? io.readFile(src);
      let json0: unknown;
      try { json0 = JSON.parse(text); } catch { throw new Error(`${src} is not JSON (a JWK or {keys: [...]})`); }
      for (const [kid, k] of parsePublicKeys(json0, nodeHashProvider)) ring.set(kid, k);
    }
  } catch (err) {
    io.err(`public key: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  let bundle;
  try { bundle = normaliseInput(input); } catch (err) {
    return printPublic(refusedPublicReport(err instanceof VerificationError ? err : new VerificationError('MALFORMED', String(err))), json, io);
  }
  return printPublic(verifyBundlePublicSync(bundle, { publicKeys: ring, ed25519: nodeEd25519Verify, keys: args.keys, hash: nodeHashProvider }), json, io);
}

/** Print a public-key report (text or JSON) and answer its exit code. */
function printPublic(report: PublicVerificationReport, json: boolean, io: CliIo): number {
  if (json) {
    io.out(JSON.stringify({
      ok: report.ok, mode: 'public', turn_id: report.turn_id, suffix: report.suffix, checkpoint: report.checkpoint,
      checked: report.checked, not_checked: report.not_checked,
      checks: report.checks.map((c) => ({ id: c.id, ok: c.ok, skipped: c.skipped ?? false, detail: c.detail, ...(c.ok ? {} : { code: c.errors[0]?.code ?? null }) })),
    }, null, 2));
  } else for (const l of formatPublicReport(report)) io.out(l);
  return report.ok ? 0 : 1;
}

/**
 * Run the CLI, fetching every `--public-key` that is an http(s) URL first (`svc-verify-keys.ts`:
 * no redirects, 10 s, 1 MiB, link-local refused). A fetch failure is exit 2.
 */
export async function runCliAsync(argv: readonly string[], io: CliIo, fetchText: (url: string) => Promise<string> = fetchKeySet): Promise<number> {
  const fetched = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = a === '--public-key' ? argv[i + 1] : a.startsWith('--public-key=') ? a.slice('--public-key='.length) : undefined;
    if (v !== undefined && isKeysUrl(v) && !fetched.has(v)) {
      try { fetched.set(v, await fetchText(v)); } catch (err) {
        io.err(`public key: ${err instanceof Error ? err.message : String(err)}`);
        return 2;
      }
    }
  }
  return runCli(argv, io, fetched);
}

/** Print `report` (text or JSON) and answer its exit code: 0 verified, 1 not. */
function printReport(report: VerificationReport, json: boolean, io: CliIo): number {
  if (json) {
    io.out(JSON.stringify({
      ok: report.ok, turn_id: report.turn_id, suffix: report.suffix,
      checks: report.checks.map((c) => ({ id: c.id, ok: c.ok, detail: c.detail, ...(c.ok ? {} : { code: c.errors[0]?.code ?? null }) })),
    }, null, 2));
  } else for (const l of formatReport(report)) io.out(l);
  return report.ok ? 0 : 1;
}

/** Entry when run directly. */
export function main(): void {
  void runCliAsync(process.argv.slice(2), {
    readFile: (p) => readFileSync(p, 'utf8'),
    fileSize: (p) => statSync(p).size,
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  }).then((code) => { process.exitCode = code; });
}

/**
 * True when this module is the program node was asked to run. Both sides are real paths: node
 * resolves symlinks in `import.meta.url` but not in `argv[1]`, and a symlinked `svc-verify` must
 * verify, not exit 0 without a word.
 */
function isMain(): boolean {
  if (!process.argv[1]) return false;
  try { return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url)); } catch { return false; }
}

if (isMain()) main();
