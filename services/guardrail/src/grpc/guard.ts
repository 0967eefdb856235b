/**
 * Guardrail's gRPC adapter (issue 20 item 2; spec "Transport split": POST /v1/guard/input and
 * /v1/guard/output over gRPC): `svc.v1.Guard/CheckInput` and `CheckOutput` call the same
 * `GuardCheck.check` as the HTTP routes (routes/guard.ts), with the same schemas.
 */
import type { GrpcBinding } from '../../../shared/grpc/server.js';
import type { SchemaNode } from '../../../shared/grpc/schema-codec.js';
import { GuardInputRequestSchema, GuardOutputRequestSchema, GuardResultSchema, type GuardInputRequest, type GuardOutputRequest } from '../contracts.js';
import type { GuardCheck } from '../domain/guard-check.js';

const S = (x: unknown): SchemaNode => x as SchemaNode;

/** The `Guard` service over `guard`. */
export function guardGrpc(guard: GuardCheck): GrpcBinding {
  return {
    service: 'Guard',
    unary: [
      {
        name: 'CheckInput', method: 'POST', url: '/v1/guard/input', body: S(GuardInputRequestSchema), response: S(GuardResultSchema),
        run: async (c, req) => ({ status: 200, body: await guard.check({ principal: c.principal, turnId: c.turnId }, 'input', req.body as GuardInputRequest) }),
      },
      {
        name: 'CheckOutput', method: 'POST', url: '/v1/guard/output', body: S(GuardOutputRequestSchema), response: S(GuardResultSchema),
        run: async (c, req) => ({ status: 200, body: await guard.check({ principal: c.principal, turnId: c.turnId }, 'output', req.body as GuardOutputRequest) }),
      },
    ],
  };
}
