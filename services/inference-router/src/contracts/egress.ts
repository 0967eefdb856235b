/**
 * Egress allowlist contracts (issue 19 item 6; spec "`/v1/admin/egress/*` proxies
 * `/v1/internal/egress/*` (runtime egress allowlist)"): `GET/POST /v1/internal/egress/allowlist`,
 * `DELETE /v1/internal/egress/allowlist/{id}`. Node-free.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';

/**
 * A destination: `host:port`, a domain pattern `*.example.com:443`, or any port `host:*`. Hosts are
 * DNS names or IP literals (IPv6 in brackets). 1–300 characters.
 */
export const EgressDestination = Type.String({ minLength: 1, maxLength: 300 });

/** One allowlist entry. */
export const EgressRule = Type.Object({
  id: Type.String(),
  destination: Type.String(),
  created_at: Type.String(),
  created_by: Type.Union([Type.String(), Type.Null()]),
});
export type EgressRule = Static<typeof EgressRule>;

/** `GET /v1/internal/egress/allowlist`: the entries plus the policy in force and the proxy's state. */
export const EgressAllowlistView = Type.Object({
  items: Type.Array(EgressRule),
  policy: Type.String(),
  proxy_state: Type.String(),
  proxy_reason: Type.Union([Type.String(), Type.Null()]),
});
export type EgressAllowlistView = Static<typeof EgressAllowlistView>;

/** `POST /v1/internal/egress/allowlist` body. */
export const EgressRuleCreate = Type.Object({ destination: EgressDestination }, { additionalProperties: false });
export type EgressRuleCreate = Static<typeof EgressRuleCreate>;

/** `DELETE /v1/internal/egress/allowlist/{id}` params. */
export const EgressRuleParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
