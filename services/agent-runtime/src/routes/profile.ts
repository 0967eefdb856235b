/**
 * User profile routes (spec "Agent runtime surfaces": `/v1/user/profile` and sub-paths: read,
 * update, draft, dismissal; "Identity headers": X-User-Timezone; issue 13 item 2). Scoped to the caller.
 * - `GET /v1/user/profile` -> 200 `UserProfile` (nulls and no preferences when none was stored)
 * - `PUT /v1/user/profile` body `UserProfileUpdate` -> 200 `UserProfile`; 400 `invalid_request`
 *   naming `body.timezone` (not an IANA zone) or `body.language` (not a BCP 47 tag)
 * - `GET /v1/user/profile/draft` -> 200 `{draft: ProfileDraft | null}`
 * - `POST /v1/user/profile/draft/accept` body `{id?}` -> 200 `UserProfile` (the changes merged in);
 *   404 `profile_draft_not_found`; 409 `profile_draft_changed` (`id` is not the pending draft)
 * - `POST /v1/user/profile/draft/dismiss` body `{id?}` -> 204 (its suggestions are never proposed
 *   again); 404 `profile_draft_not_found`; 409 `profile_draft_changed`
 *
 * `profileTimezoneSeed` (registered before the other routes) seeds the caller's timezone from
 * `X-User-Timezone` on any route, the first time it is seen, when the profile has none.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import {
  NoContent, ProfileDraftAnswerSchema, ProfileDraftDecisionSchema, USER_TIMEZONE_HEADER, UserProfileSchema, UserProfileUpdateSchema,
} from '../contracts.js';
import type { ProfileService } from '../domain/profile/service.js';
import { ownerOf, type RouteScope } from './identity.js';

/** Options of the profile routes. */
export interface ProfileRoutesOptions extends RouteScope {
  profiles: ProfileService;
}

/** Register the profile routes. */
export const profileRoutes: FastifyPluginAsyncTypebox<ProfileRoutesOptions> = async (app, { tenantId, profiles }) => {
  app.get('/v1/user/profile', {
    schema: { response: { 200: UserProfileSchema } },
  }, async (req) => profiles.get(ownerOf(req, tenantId)));

  app.put('/v1/user/profile', {
    schema: { body: UserProfileUpdateSchema, response: { 200: UserProfileSchema } },
  }, async (req) => profiles.put(ownerOf(req, tenantId), req.body));

  app.get('/v1/user/profile/draft', {
    schema: { response: { 200: ProfileDraftAnswerSchema } },
  }, async (req) => ({ draft: await profiles.draft(ownerOf(req, tenantId)) }));

  app.post('/v1/user/profile/draft/accept', {
    schema: { body: ProfileDraftDecisionSchema, response: { 200: UserProfileSchema } },
  }, async (req) => profiles.accept(ownerOf(req, tenantId), req.body?.id));

  app.post('/v1/user/profile/draft/dismiss', {
    schema: { body: ProfileDraftDecisionSchema, response: { 204: NoContent } },
  }, async (req, reply) => {
    await profiles.dismiss(ownerOf(req, tenantId), req.body?.id);
    return reply.code(204).send(null);
  });
};

/** Owners whose header was looked at (once per user and process; cleared when full). */
const SEEN_LIMIT = 10_000;

/**
 * Seed the profile timezone from `X-User-Timezone` (spec "Identity headers": "seeds profile timezone
 * on first contact"), for every route of the runtime (fastify-plugin: the hook is not encapsulated).
 * Only for users (not services); an invalid zone is ignored; a failure never fails the request.
 */
export const profileTimezoneSeed = fp<ProfileRoutesOptions>(async (app, { tenantId, profiles }) => {
  const seen = new Set<string>();
  app.addHook('preHandler', async (req) => {
    const raw = req.headers[USER_TIMEZONE_HEADER];
    const tz = Array.isArray(raw) ? raw[0] : raw;
    if (!tz || !req.principal || isServicePrincipal(req.principal)) return;
    const owner = ownerOf(req, tenantId);
    const key = `${owner.tenantId}\u0000${owner.userId}`;
    if (seen.has(key)) return;
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(key);
    try {
      if (tz.length <= 64) await profiles.seedTimezone(owner, tz);
    } catch (err) {
      req.log.warn({ err: (err as Error).message }, 'profile timezone seeding failed');
    }
  });
}, { name: 'agent-runtime-profile-timezone-seed', fastify: '5.x' });
