/**
 * Run routes (spec "Code sandbox"; issue 12 "Execution"): `POST /execute` and `POST /bash`. The
 * gateway strips `/v1/sandbox`. Errors: 400 `invalid_request`, 403 `tenant_mismatch` / `forbidden`,
 * 503 `session_limit_reached` / `sandbox_unavailable` / `sandbox_image_missing` (with `fix`),
 * 502 `runner_failed`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { BashRequestSchema, ExecuteRequestSchema, RunResultSchema } from '../contracts.js';
import type { Sandbox } from '../domain/sandbox.js';

/** Options of `runRoutes`. */
export interface RunRoutesOptions { sandbox: Sandbox }

/** Register `/execute` and `/bash`. */
export const runRoutes: FastifyPluginAsyncTypebox<RunRoutesOptions> = async (app, { sandbox }) => {
  /** `POST /execute` body `ExecuteRequest` -> 200 `RunResult` (Python; variables and imports kept across calls of the session). */
  app.post('/execute', { schema: { body: ExecuteRequestSchema, response: { 200: RunResultSchema } } },
    async (req) => sandbox.execute(requirePrincipal(req), req.body));

  /** `POST /bash` body `BashRequest` -> 200 `RunResult` (exit status of the shell; 124 after a timeout). */
  app.post('/bash', { schema: { body: BashRequestSchema, response: { 200: RunResultSchema } } },
    async (req) => sandbox.bash(requirePrincipal(req), req.body));
};
