/**
 * JSON schemas shared by the auth routes (request validation and response serialisation; a
 * response schema also guarantees nothing undeclared, such as a password hash, is ever sent).
 */
import { LIMITS } from '../contracts.js';
import { EMAIL_PATTERN } from '../domain/users.js';

/** A string schema of bounded length (characters). */
export const str = (maxLength: number, minLength = 0) => ({ type: 'string', minLength, maxLength }) as const;
const strings = { type: 'array', items: { type: 'string' } } as const;

/** A role list in request bodies (names re-checked by the domain). */
export const rolesSchema = {
  type: 'array', maxItems: LIMITS.rolesMax, items: { type: 'string', pattern: '^[a-z][a-z0-9_.-]{0,63}$' },
} as const;

/** Password in request bodies. */
export const passwordSchema = str(LIMITS.passwordMax, LIMITS.passwordMin);

/** Display name in request bodies. */
export const displayNameSchema = str(LIMITS.displayNameMax, 1);

/** Email in request bodies. */
export const emailSchema = { type: 'string', maxLength: LIMITS.emailMax, pattern: EMAIL_PATTERN } as const;

/** `TokenResponse` (RFC 6749 §5.1). */
export const tokenResponseSchema = {
  type: 'object',
  required: ['access_token', 'refresh_token', 'token_type', 'expires_in'],
  properties: { access_token: { type: 'string' }, refresh_token: { type: 'string' }, token_type: { type: 'string' }, expires_in: { type: 'integer' } },
} as const;

/** `UserView`. */
export const userViewSchema = {
  type: 'object',
  required: ['id', 'email', 'display_name', 'roles', 'disabled', 'has_password', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' }, email: { type: 'string' }, display_name: { type: 'string' }, roles: strings,
    disabled: { type: 'boolean' }, has_password: { type: 'boolean' }, created_at: { type: 'string' }, updated_at: { type: 'string' },
  },
} as const;

/** `ProfileView`. */
export const profileViewSchema = {
  type: 'object',
  required: ['id', 'email', 'display_name', 'roles', 'tenant_id', 'auth_method', 'disabled', 'created_at', 'local'],
  properties: {
    id: { type: 'string' }, email: { type: ['string', 'null'] }, display_name: { type: ['string', 'null'] }, roles: strings,
    tenant_id: { type: 'string' }, auth_method: { type: 'string' }, disabled: { type: 'boolean' },
    created_at: { type: ['string', 'null'] }, local: { type: 'boolean' },
  },
} as const;
