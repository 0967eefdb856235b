/**
 * The `gateway-ops` plugin (issue 19 items 1, 4): the `ops` local target, answering
 *
 * - `GET /v1/admin/topology` (domain/topology.ts over the status of every service),
 * - `GET /v1/admin/stack`, `GET /v1/admin/deploy`,
 * - `POST /v1/admin/services/{name}/restart`, `PUT /v1/admin/services/{name}/log-level {level}`,
 *   `GET /v1/admin/services/{name}/logs?lines=` (1-2000, default 200; secrets redacted),
 * - `GET /v1/admin/update`, `POST /v1/admin/update/bundle` (the bundle as the body, content type
 *   `application/octet-stream`, streamed to `<dataDir>/updates/incoming/`; 400 `bad_signature` /
 *   `bad_bundle`), `POST /v1/admin/update/rollback`,
 *
 * over the supervisor's control channel (`runtime.opsControl`); without a supervisor every route
 * but topology answers 503 `unavailable`. The admin guard ran before.
 */
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import type { OpsControl, OpsControlRequest } from '../../../shared/ops-control.js';
import type { ServiceStatus } from '../../../shared/runtime.js';
import { checkManifestUrl } from '../clients/update-manifest.js';
import { buildTopology } from '../domain/topology.js';
import { JOB_SOURCES, LOCAL_JOB_KINDS, NOT_COVERED, backupJobs, parseJobId, type AdminJobList } from '../domain/jobs.js';

/** Options of the `gateway-ops` plugin. */
export interface OpsPluginOptions {
  dataDir: string;
  /** The status of every service with readiness (routes/status.ts's answer). */
  status: () => Promise<ServiceStatus[]>;
  control?: OpsControl | undefined;
  /** SVC_UPDATE_MANIFEST_URL, or null. */
  manifestUrl: string | null;
  /** The bundle body limit, bytes. */
  bundleLimit: number;
  /** Send the admitted request to a service path and read the whole answer (UpstreamProxy.exchange), for `jobs`. */
  exchange: (req: FastifyRequest, service: 'agent-runtime' | 'knowledge' | 'audit' | 'memory', path: string) => Promise<{ statusCode: number; body: Buffer } | null>;
}

const BUNDLE_TYPE = 'application/octet-stream';

/** Register the `ops` local target and the bundle's streaming body parser. */
export const opsPlugin = fp<OpsPluginOptions>(async (app, opts) => {
  const incoming = join(opts.dataDir, 'updates', 'incoming');
  // Bundles stream to disk; any other octet-stream body is buffered as before.
  app.addContentTypeParser(BUNDLE_TYPE, (req, payload, done) => {
    const t = req.gw?.rule?.target;
    const isBundle = t?.kind === 'local' && t.handler === 'ops' && req.gw!.path === '/v1/admin/update/bundle';
    if (!isBundle) { collect(payload, done); return; }
    mkdirSync(incoming, { recursive: true });
    const file = join(incoming, `${randomUUID()}.bundle`);
    const out = createWriteStream(file, { mode: 0o600 });
    let n = 0;
    payload.on('data', (c: Buffer) => {
      n += c.length;
      if (n > opts.bundleLimit) { payload.destroy(); out.destroy(); rmSync(file, { force: true }); done(new DomainError('payload_too_large', 'bundle exceeds the limit'), undefined); }
    });
    payload.on('error', (err) => { out.destroy(); rmSync(file, { force: true }); done(err, undefined); });
    out.on('finish', () => done(null, { bundleFile: file }));
    payload.pipe(out);
  });

  const ask = async (req: OpsControlRequest): Promise<unknown> => {
    if (!opts.control) throw new DomainError('service_unavailable', 'no supervisor runs this gateway: operations are not available');
    const a = await opts.control(req);
    if (a.ok) return a.result;
    throw new DomainError((a.code === 'internal' ? 'internal_error' : a.code) as 'invalid_request', a.message);
  };

  app.gatewayTargets.handle('ops', async (req: FastifyRequest, reply: FastifyReply, path: string) => {
    const m = req.method;
    const svc = /^\/v1\/admin\/services\/([a-z-]+)\/(restart|log-level|logs)$/.exec(path);
    if (svc) {
      const [, service, action] = svc as unknown as [string, string, string];
      if (action === 'restart' && m === 'POST') return ask({ op: 'restart', service });
      if (action === 'log-level' && m === 'PUT') {
        const level = (jsonBody(req) as { level?: unknown } | null)?.level;
        if (typeof level !== 'string') throw new DomainError('invalid_request', 'body must be {"level": "<pino level>"}');
        return ask({ op: 'log-level', service, level: level as 'info' });
      }
      if (action === 'logs' && m === 'GET') {
        const raw = (req.query as Record<string, string | undefined>)['lines'];
        const lines = raw === undefined ? 200 : Number(raw);
        if (!Number.isInteger(lines) || lines < 1 || lines > 2000) throw new DomainError('invalid_request', 'lines must be an integer 1-2000');
        return ask({ op: 'logs', service, lines });
      }
    }
    if (path === '/v1/admin/jobs' && m === 'GET') {
      const list: AdminJobList = { jobs: [], covered: [...Object.keys(JOB_SOURCES), ...LOCAL_JOB_KINDS], not_covered: [...NOT_COVERED], unreachable: [] };
      if (app.hasDecorator('backupService')) list.jobs.push(...backupJobs(app.backupService.backupJobs()));
      else list.unreachable.push('backup');
      const answers = await Promise.all(Object.entries(JOB_SOURCES).map(async ([kind, src]) => ({ kind, src, a: await opts.exchange(req, src.service, src.list).catch(() => null) })));
      for (const { kind, src, a } of answers) {
        if (a && a.statusCode === 200) list.jobs.push(...src.map(JSON.parse(a.body.toString('utf8'))));
        else list.unreachable.push(kind);
      }
      list.jobs.sort((x, y) => (x.state === 'running' ? 0 : 1) - (y.state === 'running' ? 0 : 1) || String(y.started_at ?? '').localeCompare(String(x.started_at ?? '')));
      return list;
    }
    const cancel = /^\/v1\/admin\/jobs\/([^/]+)\/cancel$/.exec(path);
    if (cancel && m === 'POST') {
      const parsed = parseJobId(decodeURIComponent(cancel[1]!));
      if (!parsed) throw new DomainError('not_found', 'no such job (ids are <kind>:<id> of a covered kind)');
      if (parsed.kind === 'backup') {
        if (!app.hasDecorator('backupService')) throw new DomainError('service_unavailable', 'backups are not available');
        const job = app.backupService.cancelJob(parsed.id);
        return backupJobs([job])[0];
      }
      const src = JOB_SOURCES[parsed.kind];
      const a = await opts.exchange(req, src.service, src.cancel(parsed.id));
      if (!a) throw new DomainError('service_unavailable', `${src.service} cannot be reached`);
      const body = JSON.parse(a.body.toString('utf8')) as unknown;
      if (a.statusCode !== 200) return reply.code(a.statusCode).send(body);
      return src.map({ jobs: [body] })[0];
    }
    if (path === '/v1/admin/topology' && m === 'GET') return buildTopology(await opts.status());
    if (path === '/v1/admin/stack' && m === 'GET') return ask({ op: 'stack' });
    if (path === '/v1/admin/deploy' && m === 'GET') return ask({ op: 'deploy' });
    if (path === '/v1/admin/update' && m === 'GET') {
      const deploy = await ask({ op: 'deploy' }) as { running_version: string };
      return { ...deploy, manifest: await checkManifestUrl(opts.manifestUrl, deploy.running_version) };
    }
    if (path === '/v1/admin/update/bundle' && m === 'POST') {
      const file = (req.body as { bundleFile?: string } | undefined)?.bundleFile;
      if (!file) throw new DomainError('bad_bundle' as 'invalid_request', `send the bundle file as the body with content type ${BUNDLE_TYPE}`);
      try {
        const result = await ask({ op: 'update-bundle', file });
        return reply.code(202).send(result);
      } finally { rmSync(file, { force: true }); }
    }
    if (path === '/v1/admin/update/rollback' && m === 'POST') return reply.code(202).send(await ask({ op: 'update-rollback' }));
    throw notFoundError(`no route for ${m} ${path}`);
  });
}, { name: 'gateway-ops', fastify: '5.x', dependencies: ['gateway-proxy'] });

function collect(payload: Readable, done: (err: Error | null, body?: unknown) => void): void {
  const chunks: Buffer[] = [];
  payload.on('data', (c: Buffer) => chunks.push(c));
  payload.on('end', () => done(null, Buffer.concat(chunks)));
  payload.on('error', (err) => done(err));
}

function jsonBody(req: FastifyRequest): unknown {
  const b = req.body;
  if (!Buffer.isBuffer(b)) return b ?? null;
  try { return JSON.parse(b.toString('utf8')); } catch { throw new DomainError('invalid_request', 'body is not JSON'); }
}
