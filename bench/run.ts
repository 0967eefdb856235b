/**
 * `npm run bench`: every benchmark in one run, each printing its side-by-side ratios, then a summary
 * table of the figures the issues name with their targets.
 */
import { main as gateway } from './gateway.js';
import { main as stack } from './stack.js';
import { main as audit, type Figure } from './audit.js';
import { main as router } from './router.js';
import { main as chat } from './chat.js';
import { main as chatStack } from './chat-stack.js';
import { main as guardrail } from './guardrail.js';
import { main as guardWorstCase } from './guard-worst-case.js';
import { main as knowledge } from './knowledge.js';
import { main as embedder } from './embedder.js';
import { main as renderer } from './renderer.js';
import { main as sandbox } from './sandbox.js';
import { main as notifications } from './notifications.js';
import { main as twoFactor } from './two-factor.js';
import { main as guardQuality } from './guard-quality.js';
import { main as idpPkce } from './idp-pkce.js';
import { main as serviceHop } from './service-hop.js';
import { main as skillsContext } from './skills-context.js';
import { main as mcpOverhead } from './mcp-overhead.js';
import { main as egressShipper } from './egress-shipper.js';
import { main as webhookVerify } from './webhook-verify.js';
import { main as connectorFolderSync } from './connector-folder-sync.js';
import { main as backup } from './backup.js';
import { main as scaleOutPostgres } from './scale-out-postgres.js';
import { main as receiptPublic } from './receipt-public.js';
import { main as grpcTransport } from './grpc-transport.js';
import { main as scaleOutChat } from './scale-out-chat.js';

const all: Figure[] = [];
const skipped = new Set(process.argv.slice(2).filter((a) => a.startsWith('--skip=')).flatMap((a) => a.slice('--skip='.length).split(',')));
for (const [name, fn] of [['gateway', gateway], ['stack', stack], ['audit', audit], ['router', router], ['chat', chat], ['chat-stack', chatStack], ['guardrail', guardrail], ['guard-worst-case', guardWorstCase], ['guard-quality', guardQuality], ['knowledge', knowledge], ['embedder', embedder], ['renderer', renderer], ['sandbox', sandbox], ['notifications', notifications], ['two-factor', twoFactor], ['idp-pkce', idpPkce], ['service-hop', serviceHop], ['skills-context', skillsContext], ['mcp-overhead', mcpOverhead], ['egress-shipper', egressShipper], ['webhook-verify', webhookVerify], ['connector-folder-sync', connectorFolderSync], ['backup', backup], ['scale-out-postgres', scaleOutPostgres], ['receipt-public', receiptPublic], ['grpc-transport', grpcTransport], ['scale-out-chat', scaleOutChat]] as const) {
  // `npm run bench -- --skip=a,b` leaves the named benchmarks out.
  if (skipped.has(name)) { console.log(`bench ${name} skipped (--skip)`); continue; }
  try {
    all.push(...await fn());
  } catch (err) {
    console.error(`bench ${name} failed:`, err);
    process.exitCode = 1;
  }
}
console.log('\n== summary ==');
for (const f of all) {
  console.log(`${f.pass === undefined ? ' ' : f.pass ? '✓' : '✗'} ${f.name}: ${Number.isInteger(f.value) ? f.value : f.value.toFixed(3)} ${f.unit}${f.target ? ` (target ${f.target})` : ''}`);
}
process.exit(process.exitCode ?? 0);
