/** Agent tool executors against the real services, with a user's stamped headers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { start as startKnowledge } from '../../services/knowledge/src/index.js';
import { start as startMemory } from '../../services/memory/src/index.js';
import { knowledgeTools } from '../../services/knowledge/src/tools.js';
import { memoryTools } from '../../services/memory/src/tools.js';
import { toolContext } from '../helpers/tool-context.js';
import { call, headersFor, knowledgeConfig, memoryConfig, principal, removeDir } from '../helpers/embedder/service-helpers.js';

test('knowledge_search cites, wiki_read/wiki_write round-trip, memory_store/recall/get stay in the caller scope', async (t) => {
  const kcfg = knowledgeConfig();
  const mcfg = memoryConfig();
  const k = await startKnowledge(kcfg);
  const m = await startMemory(mcfg);
  t.after(async () => { await k.close(); await m.close(); removeDir(kcfg.dataDir); removeDir(mcfg.dataDir); });
  const kb = `http://127.0.0.1:${k.port}`;
  const mb = `http://127.0.0.1:${m.port}`;
  const alice = headersFor(principal('alice'));
  await call(kb, 'POST', '/v1/knowledge/ingest/text', alice, { title: 'Expense policy', content: 'Taxi receipts above 50 euros need manager approval.' });
  const tool = (n: string) => [...knowledgeTools, ...memoryTools].find((x) => x.name === n)!;
  for (const x of [...knowledgeTools, ...memoryTools]) {
    assert.equal(x.definition.type, 'function');
    assert.equal(x.definition.function.name, x.name);
    assert.equal((x.definition.function.parameters as { type: string }).type, 'object');
  }
  const kctx = toolContext({ knowledge: kb }, alice);
  const s = await tool('knowledge_search').execute({ query: 'taxi receipts approval' }, kctx);
  assert.ok(!s.isError);
  assert.equal(s.citations![0]!.document_title, 'Expense policy');
  assert.equal(JSON.parse(s.content).passages[0].cite, '[1]');
  const bobSearch = await tool('knowledge_search').execute(JSON.stringify({ query: 'taxi receipts approval' }), toolContext({ knowledge: kb }, headersFor(principal('bob'))));
  assert.deepEqual(JSON.parse(bobSearch.content).passages, []);
  assert.ok((await tool('knowledge_search').execute({}, kctx)).isError);
  const w = await tool('wiki_write').execute({ topic: 'travel', title: 'Travel', content: '# Travel\nBook via the portal.' }, kctx);
  assert.equal(JSON.parse(w.content).created, true);
  assert.match(JSON.parse((await tool('wiki_read').execute({ topic: 'travel' }, kctx)).content).content, /portal/);
  assert.equal(JSON.parse((await tool('wiki_read').execute({}, kctx)).content).pages[0].topic, 'travel');
  assert.equal(JSON.parse((await tool('wiki_read').execute({ topic: 'travel' }, toolContext({ knowledge: kb }, headersFor(principal('bob'))))).content).found, false);

  const mctx = toolContext({ memory: mb }, alice, 'helper');
  const st = JSON.parse((await tool('memory_store').execute({ content: 'Alice travels to Lisbon monthly', memory_type: 'user' }, mctx)).content);
  assert.equal(st.stored, true);
  const rc = JSON.parse((await tool('memory_recall').execute({ query: 'Lisbon travel' }, mctx)).content);
  assert.equal(rc.memories[0].memory_id, st.memory_id);
  const got = JSON.parse((await tool('memory_get').execute({ memory_id: st.memory_id }, mctx)).content);
  assert.equal(got.source, 'agent_tool');
  const bob = JSON.parse((await tool('memory_get').execute({ memory_id: st.memory_id }, toolContext({ memory: mb }, headersFor(principal('bob'))))).content);
  assert.equal(bob.found, false);
});
