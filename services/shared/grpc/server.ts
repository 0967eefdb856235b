/**
 * The gRPC server every service with a gRPC port runs beside its HTTP server (issue 20 item 2;
 * DESIGN.md "Inside a service": `grpc/` adapts the same domain).
 *
 * A service's `grpc/` adapter declares unary methods (`UnaryMethod`: the route's params, query and
 * body schemas, its response schema and `run`, which calls the same domain function as the HTTP
 * route) and, for audit, the turn-event stream. For every call the server does what the HTTP kit
 * does, in the same order and with the same answers: the service token in `authorization` metadata
 * (kit/service-auth.ts `checkServiceToken`), the gateway's stamps (`svc-principal`, `svc-turn-id`,
 * `svc-cap-token`; kit/principal.ts `verifyGatewayStamps`), then validation with fastify's own
 * compiler and options (params, body, querystring), then `run`; a thrown error becomes the body and
 * status `toErrorResponse` gives the HTTP route, carried in trailers (wire.ts).
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { StampVerifier, type CapabilityToken, type Principal } from '../identity/principal.js';
import type { ServiceTokenVerifier } from '../identity/service-token-verifier.js';
import type { ErrorTable } from '../kit/domain-error.js';
import { toErrorResponse } from '../kit/errors.js';
import { verifyGatewayStamps } from '../kit/principal.js';
import { checkServiceToken } from '../kit/service-auth.js';
import { svcV1 } from './proto.js';
import { fromMessage, mergeSchemas, toMessage, type SchemaNode } from './schema-codec.js';
import { METADATA_TO_HEADER, TR_ERROR_BODY, TR_ERROR_HEADERS, TR_HTTP_STATUS, grpcCodeOf } from './wire.js';

/** Who called, as the HTTP kit decorates a request. */
export interface GrpcCaller {
  principal: Principal;
  capToken: CapabilityToken | null;
  turnId: string | null;
  /** Client id of the service token, null when service tokens are off. */
  serviceClient: string | null;
  /** The call's metadata as HTTP header names (stamps under `x-svc-*`), first value each. */
  headers: Record<string, string>;
}

/** The parts of a request, validated (and coerced, defaults filled) as fastify would. */
export interface GrpcRequest { params: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> }

/** What `run` answers: the HTTP status and the JSON body (the route's response schema shapes it). */
export interface GrpcAnswer { status: number; body: unknown }

/** One unary method, the twin of one HTTP route. */
export interface UnaryMethod {
  /** rpc name in the proto service (`Store`, `CheckInput`, ...). */
  name: string;
  /** The HTTP route it mirrors (validator cache key). */
  method: 'GET' | 'POST';
  url: string;
  params?: SchemaNode;
  querystring?: SchemaNode;
  body?: SchemaNode;
  /** The response schema of the success statuses. */
  response: SchemaNode;
  run(caller: GrpcCaller, req: GrpcRequest): Promise<GrpcAnswer> | GrpcAnswer;
}

/** A bidirectional stream method (audit's turn-event publish); `caller` is verified at open. */
export type BidiMethod = (call: grpc.ServerDuplexStream<Record<string, unknown>, Record<string, unknown>>, caller: GrpcCaller) => void;

/** The methods of one proto service (`Memory`, `Guard`, `Wiki`, `Audit`). */
export interface GrpcBinding {
  service: string;
  unary?: UnaryMethod[];
  bidi?: Record<string, BidiMethod>;
}

/** Options of `startGrpcServer`. */
export interface GrpcServerOptions {
  host: string;
  /** 0 = ephemeral. */
  port: number;
  bindings: readonly GrpcBinding[];
  /** The service's error table (`contracts.ts`). */
  table: ErrorTable;
  logger: Logger;
  /** Service-token verifier, null when service tokens are off. */
  verifier: ServiceTokenVerifier | null;
  principalKeys: readonly string[];
  capTokenKeys: readonly string[];
}

/** A listening gRPC server. */
export interface RunningGrpcServer {
  port: number;
  /** Stop accepting calls, finish those in flight (forced after `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

type ValidatorFn = ((data: unknown) => boolean) & { errors?: Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }> | null };

/** fastify's validator compiler with the kit's ajv options (kit/service.ts), so answers match the HTTP routes'. */
const buildValidator = AjvCompiler()({}, {
  customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false, allowUnionTypes: true },
  plugins: [],
} as never) as unknown as (o: { schema: unknown; method: string; url: string; httpPart: string }) => ValidatorFn;

/** The first value of every metadata key, stamps renamed to their HTTP header names. */
function headersOf(md: grpc.Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) {
    if (typeof v !== 'string') continue;
    out[METADATA_TO_HEADER[k] ?? k] = v;
  }
  return out;
}

/** The trailers and gRPC error of a failed call, from the HTTP error answer of `err`. */
function errorStatus(err: unknown, table: ErrorTable, logger: Logger, what: string): Partial<grpc.StatusObject> {
  const res = toErrorResponse(err, table);
  if (res.status >= 500) logger.error({ err, rpc: what }, 'grpc call failed');
  const md = new grpc.Metadata();
  md.set(TR_HTTP_STATUS, String(res.status));
  md.set(TR_ERROR_BODY, Buffer.from(JSON.stringify(res.body)));
  if (res.headers) md.set(TR_ERROR_HEADERS, Buffer.from(JSON.stringify(res.headers)));
  return { code: grpcCodeOf(res.status), details: String(res.body.error ?? 'error'), metadata: md };
}

/** Start a gRPC server with `bindings` on `host:port`. @throws when the port cannot be bound. */
export async function startGrpcServer(o: GrpcServerOptions): Promise<RunningGrpcServer> {
  const pkg = svcV1();
  const principals = new StampVerifier<Principal>(o.principalKeys);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024, 'grpc.enable_channelz': 0 });

  /** Verify the service token and the stamps of a call, as the HTTP onRequest hooks do. */
  const authenticate = async (md: grpc.Metadata): Promise<GrpcCaller> => {
    const headers = headersOf(md);
    let serviceClient: string | null = null;
    if (o.verifier) serviceClient = await checkServiceToken(headers.authorization, o.verifier);
    const v = verifyGatewayStamps((name) => headers[name], principals, o.capTokenKeys);
    return { principal: v.principal, capToken: v.capToken, turnId: v.turnId, serviceClient, headers };
  };

  for (const b of o.bindings) {
    const ctor = pkg[b.service];
    if (!ctor) throw new Error(`proto service svc.v1.${b.service} not found`);
    const impl: grpc.UntypedServiceImplementation = {};
    for (const m of b.unary ?? []) {
      const schema = mergeSchemas(m.params, m.querystring, m.body);
      const parts = (['params', 'body', 'querystring'] as const)
        .filter((p) => m[p] !== undefined)
        .map((p) => ({ part: p, schema: m[p]!, validate: buildValidator({ schema: m[p], method: m.method, url: m.url, httpPart: p }) }));
      impl[m.name] = (call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        void (async () => {
          const caller = await authenticate(call.metadata);
          const json = fromMessage(schema, call.request);
          const req: GrpcRequest = { params: {}, query: {}, body: {} };
          for (const p of parts) {
            const data: Record<string, unknown> = {};
            for (const k of Object.keys(p.schema.properties ?? {})) if (json[k] !== undefined) data[k] = json[k];
            if (!p.validate(data)) throw validationError(p.validate.errors ?? [], p.part);
            req[p.part === 'querystring' ? 'query' : p.part] = data;
          }
          return m.run(caller, req);
        })().then((ans) => {
          const md = new grpc.Metadata();
          md.set(TR_HTTP_STATUS, String(ans.status));
          cb(null, toMessage(m.response, ans.body), md);
        }, (err: unknown) => cb(errorStatus(err, o.table, o.logger, m.name)));
      };
    }
    for (const [name, fn] of Object.entries(b.bidi ?? {})) {
      impl[name] = (call: grpc.ServerDuplexStream<Record<string, unknown>, Record<string, unknown>>) => {
        authenticate(call.metadata).then((caller) => fn(call, caller), (err: unknown) => {
          call.emit('error', errorStatus(err, o.table, o.logger, name));
        });
      };
    }
    server.addService(ctor.service, impl);
  }

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${o.host}:${o.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  let closing: Promise<void> | null = null;
  return {
    port,
    close: (graceMs = 5000) => {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => { server.forceShutdown(); resolve(); }, graceMs);
        force.unref();
        server.tryShutdown(() => { clearTimeout(force); resolve(); });
      });
      return closing;
    },
  };
}

/** The error fastify raises for a failed validation (message from its default formatter, `validation`, `validationContext`). */
function validationError(errors: NonNullable<ValidatorFn['errors']>, part: string): Error {
  const text = errors.map((e) => `${part}${e.instancePath || ''} ${e.message}`).join(', ');
  const err = new Error(text) as Error & { validation: unknown; validationContext: string; statusCode: number; code: string };
  err.validation = errors;
  err.validationContext = part;
  err.statusCode = 400;
  err.code = 'FST_ERR_VALIDATION';
  return err;
}
