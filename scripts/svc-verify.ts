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
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { nodeHashProvider } from '../services/audit/src/domain/keys.js';
import { isBundleShape, verifyReceiptJson, type VerificationReport } from '../services/audit/src/verifier/index.js';

/** Parsed command line. */
export interface CliArgs { receipt?: string; proof?: string; bundle?: string; keys: Map<string, string>; json: boolean }

/** I/O the CLI uses (injected by tests). */
export interface CliIo { readFile(path: string): string; out(line: string): void; err(line: string): void }

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

function readJson(io: CliIo, path: string): unknown {
  const text = io.readFile(path);
  try { return JSON.parse(text); } catch { throw new Error(`${path} is not JSON`); }
}

/** Format a report as the lines the CLI prints. */
export function formatReport(r: VerificationReport): string[] {
  const lines = [`receipt for turn ${r.turn_id ?? '(unknown)'}`];
  for (const c of r.checks) lines.push(`${c.ok ? 'PASS' : 'FAIL'}  ${c.id.padEnd(18)} ${c.title}: ${c.detail}`);
  lines.push(r.ok ? 'VERIFIED: every check holds (against this proof, this suffix and the supplied keys)' : 'NOT VERIFIED: at least one check failed');
  return lines;
}

/** Run the CLI. @returns the exit code (0 verified, 1 not verified, 2 usage/input error). */
export function runCli(argv: readonly string[], io: CliIo): number {
  let args: CliArgs;
  let input: { bundle: unknown } | { detail: unknown; proof: unknown };
  try {
    args = parseArgs(argv, io);
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
    io.err(err instanceof Error ? err.message : String(err));
    return 2;
  }
  const report = verifyReceiptJson(input, { keys: args.keys, hash: nodeHashProvider });
  if (args.json) io.out(JSON.stringify({ ok: report.ok, turn_id: report.turn_id, checks: report.checks.map((c) => ({ id: c.id, ok: c.ok, detail: c.detail })) }, null, 2));
  else for (const l of formatReport(report)) io.out(l);
  return report.ok ? 0 : 1;
}

/** Entry when run directly. */
export function main(): void {
  process.exitCode = runCli(process.argv.slice(2), {
    readFile: (p) => readFileSync(p, 'utf8'),
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
