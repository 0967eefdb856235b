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
 * Reads receipt format v1 and v1.1 (docs/receipts.md): in a v1.1 proof, other principals' suffix
 * rows are redacted and checked by link only; the output says how many rows were checked in full
 * and how many by link. An input file over 256 MiB or nested deeper than 256 levels (also inside a
 * signed payload) is refused with a NOT VERIFIED verdict naming `INPUT_TOO_LARGE` /
 * `INPUT_TOO_DEEP` (exit 1), never a crash (issue 11 item 4).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeHashProvider } from '../services/audit/src/domain/keys.js';
import {
  checkJsonText, isBundleShape, refusedReport, VERIFIER_LIMITS, VerificationError, verifyReceiptJson, type VerificationReport,
} from '../services/audit/src/verifier/index.js';

/** Parsed command line. */
export interface CliArgs { receipt?: string; proof?: string; bundle?: string; keys: Map<string, string>; json: boolean }

/**
 * I/O the CLI uses (injected by tests). `fileSize` (bytes), when given, lets an oversized file be
 * refused before it is read.
 */
export interface CliIo { readFile(path: string): string; out(line: string): void; err(line: string): void; fileSize?(path: string): number }

const USAGE = 'usage: svc-verify (--bundle F | --receipt F --proof F) --key-version LABEL (--key K | --key-file F) [--key-version L2 --key K2 ...] [--json]';

/** Parse argv (without node and script). @throws Error with a usage message. */
export function parseArgs(argv: readonly string[], io: Pick<CliIo, 'readFile'>): CliArgs {
  const out: CliArgs = { keys: new Map(), json: false };
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
      case '--key-version': pendingVersion = value(); versions.push(pendingVersion); break;
      case '--key': pendingKeys.push(value()); break;
      case '--key-file': pendingKeys.push(io.readFile(value()).replace(/\r?\n$/, '')); break;
      case '-h': case '--help': throw new Error(USAGE);
      default: throw new Error(`unknown argument ${a}\n${USAGE}`);
    }
  }
  if (versions.length === 0 || versions.length !== pendingKeys.length) throw new Error(`give one --key (or --key-file) per --key-version\n${USAGE}`);
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

/** Run the CLI. @returns the exit code (0 verified, 1 not verified, 2 usage/input error). */
export function runCli(argv: readonly string[], io: CliIo): number {
  let args: CliArgs;
  let json = false;
  let input: { bundle: unknown } | { detail: unknown; proof: unknown };
  try {
    args = parseArgs(argv, io);
    json = args.json;
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
    if (err instanceof RefusedInput) return printReport(refusedReport(err.error), json, io);
    io.err(err instanceof Error ? err.message : String(err));
    return 2;
  }
  return printReport(verifyReceiptJson(input, { keys: args.keys, hash: nodeHashProvider }), json, io);
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
  process.exitCode = runCli(process.argv.slice(2), {
    readFile: (p) => readFileSync(p, 'utf8'),
    fileSize: (p) => statSync(p).size,
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  });
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
