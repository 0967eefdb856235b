/**
 * Time to first token through the whole stack (issue 5 "Figures"), side by side in one run: a
 * streamed chat through the gateway (bearer validation, stamping, rate limits, turn events), the
 * agent runtime, the real guardrail input check, memory and knowledge prefetch, and the inference
 * router's `default` role, vs the same model request straight to the scripted provider.
 * TTFT = request start to the first content token. Target: at most 30 ms added at p50.
 */
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { startScriptedLlm } from '../test/helpers/scripted-llm.js';
import { ADMIN, login, startStack } from '../test/helpers/stack.js';
import { pct, ttft } from './support/measure.js';
import type { Figure } from './audit.js';



/** Run the whole-stack TTFT benchmark and return its figure. */
export async function main(): Promise<Figure[]> {
  const llm = await startScriptedLlm({ script: () => ({ content: 'Zanzibar is an archipelago off the coast of Tanzania.' }) });
  const stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', SVC_RATE_LIMIT_IP_PER_MINUTE: '1000000', SVC_RATE_LIMIT_TENANT_PER_MINUTE: '1000000', SVC_LOG_LEVEL: 'error' });
  try {
    const token = await login(stack.url, ADMIN.email, ADMIN.password);
    const auth = { authorization: `Bearer ${token}` };
    const post = async (path: string, body: unknown, method = 'POST'): Promise<{ id?: string }> => {
      const r = await fetch(stack.url + path, { method, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return await r.json() as { id?: string };
    };
    const prov = await post('/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
    await post('/v1/admin/inference/roles/default', { provider_id: prov.id, model: 'scripted-model' }, 'PUT');

    const gw = new Pool(stack.url, { connections: 1 });
    const direct = new Pool(llm.url, { connections: 1 });
    const chatBody = JSON.stringify({ messages: [{ role: 'user', content: 'Where is Zanzibar?' }] });
    const directBody = JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: 'Where is Zanzibar?' }] });
    for (let i = 0; i < 20; i++) {
      await ttft(gw, '/v1/chat/stream', auth, chatBody, 'event: token');
      await ttft(direct, '/v1/chat/completions', {}, directBody, '"content":"Z');
    }
    const s: number[] = []; const d: number[] = [];
    for (let i = 0; i < 150; i++) {
      s.push(await ttft(gw, '/v1/chat/stream', auth, chatBody, 'event: token'));
      d.push(await ttft(direct, '/v1/chat/completions', {}, directBody, '"content":"Z'));
    }
    await gw.close(); await direct.close();
    const added = pct(s, 50) - pct(d, 50);
    console.log('\n== chat TTFT through the whole stack (gateway, runtime, guardrail, prefetch, router) ==');
    console.log(`p50: direct to provider ${pct(d, 50).toFixed(2)} ms, whole stack ${pct(s, 50).toFixed(2)} ms (p90 ${pct(s, 90).toFixed(2)} ms), added ${added.toFixed(2)} ms (target <= 30 ms)`);
    return [{ name: 'chat TTFT added by the whole stack, p50', value: added, unit: 'ms', target: '<= 30', pass: added <= 30 }];
  } finally {
    await stack.stop();
    await llm.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
