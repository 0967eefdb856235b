/**
 * The outbound URL checker and agent of issue 11 item 8 ("No URL of the workstation's own"):
 * spellings as WHATWG URL reads them, the refusal classes (unspecified, link-local, own port on an
 * own address, scheme), what stays allowed (other loopback ports, public addresses), the own-port set
 * built from a config, and the agent refusing at connect time (literals, names, a rebinding answer)
 * before a byte reaches the listener. Resolution is the OS resolver on literals and `localhost`,
 * except where a test needs a name that answers differently on each lookup.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import {
  canonicalAddress, checkOutboundUrl, isUrlNotAllowed, refusalOf, workstationEndpoints, WorkstationEndpoints, type OutboundPolicy, type Resolver,
} from '../../../services/shared/http/outbound.js';
import { createOutboundAgent } from '../../../services/shared/http/outbound-agent.js';
import { serviceUrls } from '../../helpers/service-configs.js';

/** The workstation of these tests: gateway 8080, audit 8008 with gRPC 9008; one LAN address. */
const own = new WorkstationEndpoints([8080, 8008, 9008], () => ['192.0.2.10', 'fe80::1']);
const policy: OutboundPolicy = { own };

async function refusal(url: string, p: OutboundPolicy = policy): Promise<string> {
  try { await checkOutboundUrl(url, p); } catch (err) {
    assert.ok(isUrlNotAllowed(err), `${url}: ${String(err)}`);
    assert.equal((err as { code: string }).code, 'url_not_allowed');
    return (err as { reason: string }).reason;
  }
  return 'allowed';
}

test('WHATWG URL reads every alternate spelling of loopback as 127.0.0.1 (and the mapped form canonically)', () => {
  const host = (s: string): string => new URL(`http://${s}:8080/v1`).hostname;
  assert.equal(host('127.1'), '127.0.0.1');
  assert.equal(host('2130706433'), '127.0.0.1');
  assert.equal(host('0x7f000001'), '127.0.0.1');
  assert.equal(host('0177.0.0.1'), '127.0.0.1');
  assert.equal(host('0x7f.1'), '127.0.0.1');
  assert.equal(host('[::ffff:127.0.0.1]'), '[::ffff:7f00:1]');
  assert.equal(host('0.0.0.0'), '0.0.0.0');
  assert.equal(host('0'), '0.0.0.0');
});

test('canonical addresses: IPv4-mapped IPv6 is the IPv4 it carries; IPv6 is RFC 5952 text', () => {
  assert.equal(canonicalAddress('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(canonicalAddress('[::ffff:7f00:1]'), '127.0.0.1');
  assert.equal(canonicalAddress('::FFFF:A9FE:A9FE'), '169.254.169.254');
  assert.equal(canonicalAddress('0:0:0:0:0:0:0:1'), '::1');
  assert.equal(canonicalAddress('FE80:0:0::1'), 'fe80::1');
  assert.equal(canonicalAddress('10.0.0.1'), '10.0.0.1');
  assert.equal(canonicalAddress('fe80::1%lo'), 'fe80::1');
  assert.equal(canonicalAddress('localhost'), null);
});

test('the gateway and service ports are refused on every loopback spelling and on own interface addresses', async () => {
  for (const url of [
    'http://127.0.0.1:8080/v1', 'http://127.1:8080', 'http://2130706433:8080', 'http://0x7f000001:8080', 'http://0177.0.0.1:8080',
    'http://[::ffff:127.0.0.1]:8080', 'http://[::1]:8080', 'http://localhost:8080/v1', 'http://127.8.9.10:8080',
    'http://192.0.2.10:8080', 'https://127.0.0.1:8008', 'http://127.0.0.1:9008',
  ]) assert.equal(await refusal(url), 'own_endpoint', url);
});

test('unspecified and link-local addresses are refused on any port', async () => {
  for (const url of ['http://0.0.0.0:8080', 'http://0.0.0.0:11434', 'http://0:11434', 'http://0.1.2.3/', 'http://[::]:11434', 'http://[::ffff:0.0.0.0]:11434']) {
    assert.equal(await refusal(url), 'unspecified', url);
  }
  for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://169.254.0.1:11434', 'http://[fe80::1]:11434', 'http://[febf::2]/', 'http://[::ffff:169.254.169.254]/']) {
    assert.equal(await refusal(url), 'link_local', url);
  }
});

test('only http and https are fetched; an unparseable URL is refused', async () => {
  for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://127.0.0.1:70/', 'ws://127.0.0.1:11434/']) assert.equal(await refusal(url), 'scheme', url);
  assert.equal(await refusal('not a url'), 'unparseable');
});

test('other loopback ports, own addresses on other ports and public addresses stay allowed', async () => {
  for (const url of ['http://127.0.0.1:11434/v1', 'http://localhost:11434', 'http://[::1]:8000/v1', 'http://192.0.2.10:1234', 'https://127.0.0.1/', 'http://203.0.113.7:8080/v1']) {
    assert.equal(await refusal(url), 'allowed', url);
  }
  const checked = await checkOutboundUrl('http://localhost:11434/v1', policy);
  assert.equal(checked.port, 11434);
  assert.ok(checked.addresses.some((a) => a.address === '127.0.0.1' || a.address === '::1'));
  assert.equal((await checkOutboundUrl('https://203.0.113.7/', policy)).port, 443);
});

test('a name is refused when ANY address it resolves to is refused', async () => {
  const resolve: Resolver = async () => [{ address: '203.0.113.5', family: 4 }, { address: '::ffff:127.0.0.1', family: 6 }];
  assert.equal(await refusal('http://provider.example:8080/v1', { own, resolve }), 'own_endpoint');
  assert.equal(await refusal('http://provider.example:11434/v1', { own, resolve }), 'allowed');
  assert.equal(refusalOf('203.0.113.5', 8080, own), null);
});

test('the own endpoints come from the config: every service port, gRPC ports, the public URL and the own port', () => {
  const urls = serviceUrls({ gateway: 'http://127.0.0.1:18080', audit: 'http://127.0.0.1:18008', 'inference-router': 'http://127.0.0.1:18004' });
  const e = workstationEndpoints({ serviceUrls: urls, publicUrl: 'https://workstation.example', port: 18004 });
  for (const p of [18080, 18008, 19008, 18004, 443, 9]) assert.ok(e.servesPort(p), String(p));
  assert.equal(e.servesPort(19004), false, 'the router has no gRPC port');
  assert.equal(e.servesPort(19080), false, 'the gateway has no gRPC port');
  assert.equal(e.servesPort(11434), false);
  e.addPort(0);
  assert.equal(e.servesPort(0), false);
  e.addPort(23456);
  assert.ok(e.servesPort(23456), 'a port bound later is added');
});

test('the outbound agent refuses at connect time, before a byte reaches the listener; other ports pass', async (t) => {
  let hits = 0;
  const srv = createServer((req, res) => { hits++; res.end(`ok ${req.url}`); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const port = (srv.address() as AddressInfo).port;
  const guarded = createOutboundAgent({ own: new WorkstationEndpoints([port]) });
  const open = createOutboundAgent({ own: new WorkstationEndpoints([port + 1]) });
  t.after(() => Promise.all([guarded.close(), open.close()]));

  for (const url of [`http://127.0.0.1:${port}/a`, `http://localhost:${port}/b`, `http://127.1:${port}/c`, `http://[::ffff:127.0.0.1]:${port}/d`, `http://0.0.0.0:${port}/e`]) {
    await assert.rejects(request(url, { dispatcher: guarded }), (err: unknown) => isUrlNotAllowed(err), url);
  }
  await assert.rejects(request('http://169.254.169.254/latest/meta-data/', { dispatcher: open }), (err: unknown) => isUrlNotAllowed(err));
  assert.equal(hits, 0, 'no refused request reached the listener');

  for (const url of [`http://127.0.0.1:${port}/a`, `http://localhost:${port}/b`, `http://0x7f000001:${port}/c`]) {
    const res = await request(url, { dispatcher: open });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), `ok ${new URL(url).pathname}`);
  }
  assert.equal(hits, 3);
});

test('a name that passed a check and then rebinds to the workstation is refused when the agent connects', async (t) => {
  let hits = 0;
  const srv = createServer((_req, res) => { hits++; res.end('internal'); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const port = (srv.address() as AddressInfo).port;
  let lookups = 0;
  // A rebinding DNS server: a public address on the first question, loopback afterwards.
  const resolve: Resolver = async () => (lookups++ === 0 ? [{ address: '203.0.113.9', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
  const p: OutboundPolicy = { own: new WorkstationEndpoints([port]), resolve };
  const agent = createOutboundAgent(p);
  t.after(() => agent.close());
  await checkOutboundUrl(`http://rebind.example:${port}/`, p);
  await assert.rejects(request(`http://rebind.example:${port}/`, { dispatcher: agent }), (err: unknown) => isUrlNotAllowed(err));
  assert.equal(lookups, 2, 'the agent resolved once more, at connect time, and judged that answer');
  assert.equal(hits, 0);
});
