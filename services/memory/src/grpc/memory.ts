/**
 * Memory's gRPC adapter (issue 20 item 2; spec "Transport split": POST /v1/memory over gRPC):
 * `svc.v1.Memory/Store` calls the same `MemoryWriter.store` as the HTTP route, with the same
 * schemas (contracts.ts) and the same answer (201 created, 200 updated; in the `svc-http-status` trailer).
 */
import type { GrpcBinding, GrpcCaller } from '../../../shared/grpc/server.js';
import type { SchemaNode } from '../../../shared/grpc/schema-codec.js';
import { StoreRequestSchema, StoreResultSchema, type StoreRequest } from '../contracts.js';
import type { Caller } from '../domain/scopes.js';
import type { MemoryWriter } from '../domain/write.js';

/** Stamped headers forwarded to the memory role (routes/memory.ts `callerOf`). */
const FORWARDED = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token'];

/** The caller of a gRPC call, as routes/memory.ts `callerOf` builds it from HTTP headers. */
export function grpcCallerOf(c: GrpcCaller): Caller {
  const headers: Record<string, string> = {};
  for (const h of FORWARDED) if (c.headers[h] !== undefined) headers[h] = c.headers[h]!;
  return { principal: c.principal, turnId: c.turnId, headers };
}

/** The `Memory` service over `writer`. */
export function memoryGrpc(writer: MemoryWriter): GrpcBinding {
  return {
    service: 'Memory',
    unary: [{
      name: 'Store', method: 'POST', url: '/v1/memory',
      body: StoreRequestSchema as unknown as SchemaNode, response: StoreResultSchema as unknown as SchemaNode,
      run: async (c, req) => {
        const r = await writer.store(grpcCallerOf(c), req.body as StoreRequest);
        return { status: r.created ? 201 : 200, body: r.result };
      },
    }],
  };
}
