/**
 * Pairing (issue 14 items 1 and 2; /work/2fa-brief.md "User routes", "Phone routes";
 * docs/mobile-2fa.md):
 * - `POST /v1/account/devices/pairing` (signed principal) -> 201 `PairingCreated`;
 * - `GET /v1/account/devices/pairing/{enrollment_id}` (signed principal) -> `PairingStatus`;
 * - `POST /dirauth/pair/enroll` (public: the enrollment token and proof are the credential) -> 201 `EnrollResult`;
 * - `POST /dirauth/pair/refresh` (public: the mobile refresh token is the credential) -> `TokenResponse`.
 * Token answers carry `Cache-Control: no-store` (RFC 6749 §5.1).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  DeviceRefreshBodySchema, EnrollBodySchema, EnrollResultSchema, EnrollmentParamsSchema, PAIR_ENROLL_PATH, PAIR_REFRESH_PATH,
  PairingCreatedSchema, PairingStatusSchema, TokenResponseSchema,
} from '../contracts.js';
import type { EnrollmentService } from '../domain/enrollment.js';
import type { MobileTokenService } from '../domain/mobile-tokens.js';

/** Options of `pairingRoutes`. */
export interface PairingRoutesOptions {
  enrollment: EnrollmentService;
  mobile: MobileTokenService;
}

const pub = { public: true } as const;
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/** Register the pairing routes. */
export const pairingRoutes: FastifyPluginAsyncTypebox<PairingRoutesOptions> = async (app, { enrollment, mobile }) => {
  app.post('/v1/account/devices/pairing', { schema: { response: { 201: PairingCreatedSchema } } }, async (req, reply) => {
    const pairing = await enrollment.open(requirePrincipal(req).id);
    return reply.code(201).headers(noStore).send(pairing);
  });

  app.get('/v1/account/devices/pairing/:enrollment_id', { schema: { params: EnrollmentParamsSchema, response: { 200: PairingStatusSchema } } },
    async (req) => enrollment.status(requirePrincipal(req).id, req.params.enrollment_id));

  app.post(PAIR_ENROLL_PATH, { config: pub, schema: { body: EnrollBodySchema, response: { 201: EnrollResultSchema } } }, async (req, reply) => {
    const result = await enrollment.enroll(req.body.enrollment_token, req.body.proof);
    return reply.code(201).headers(noStore).send(result);
  });

  app.post(PAIR_REFRESH_PATH, { config: pub, schema: { body: DeviceRefreshBodySchema, response: { 200: TokenResponseSchema } } }, async (req, reply) => {
    const pair = await mobile.refresh(req.body.refresh_token);
    return reply.headers(noStore).send(pair);
  });
};
