/**
 * The gateway's routing table (spec: "What the service does" rule 4, "Transport split",
 * endpoint tables). Longest match wins: patterns are ranked by their literal length, so specific
 * paths (`/v1/auth/installer-handoff`, `/v1/admin/inference/*`, `/v1/chat/agui/stream`,
 * `/v1/oauth/{provider_slug}/callback`) beat the catch-all `/v1/*`.
 */
import type { UpstreamName } from '../../../shared/services.js';

/**
 * Names of the gateway-owned answers: `login` and `login_2fa` are the password login with its
 * second factor (issue 14 item 3; spec "Mobile-push second factor").
 */
export type LocalTargetName = 'status' | 'agui' | 'reserved' | 'unavailable' | 'health' | 'login' | 'login_2fa' | 'refresh' | 'ops' | 'backups' | 'keys';

/** Where a matched request goes. */
export type RouteTarget =
  | { kind: 'proxy'; service: UpstreamName; rewrite?: (path: string) => string }
  | { kind: 'local'; handler: LocalTargetName };

/** One row of the table. `*` at the end matches the rest of the path; `{x}` one segment. */
export interface RouteRule {
  pattern: string;
  target: RouteTarget;
  /** Bypasses the bearer chain (public auth routes, OAuth callback, webhooks, JWKS, phone pairing). */
  public?: boolean;
  /** Restrict to these methods (others fall through to shorter patterns). */
  methods?: readonly string[];
  /**
   * Streamed answers of this route never end by themselves (the phone's device channel, issue 14):
   * the gateway cuts them when it shuts down instead of waiting, and the client reconnects.
   */
  endless?: boolean;
  /**
   * The client's own `Authorization` and `Cookie` headers reach the service (the embedded IdP,
   * issue 15 item 1: it authenticates its clients by HTTP Basic and keeps sign-in state in cookies);
   * every other route never forwards them.
   */
  credentials?: boolean;
}

const proxy = (service: UpstreamName, rewrite?: (p: string) => string): RouteTarget =>
  rewrite ? { kind: 'proxy', service, rewrite } : { kind: 'proxy', service };

/** The table itself. */
export const ROUTES: readonly RouteRule[] = [
  // Public auth surface.
  { pattern: '/v1/auth/config', target: proxy('auth'), public: true, methods: ['GET'] },
  { pattern: '/v1/auth/idps', target: proxy('auth'), public: true, methods: ['GET'] },
  { pattern: '/v1/auth/login', target: { kind: 'local', handler: 'login' }, public: true, methods: ['POST'] },
  { pattern: '/v1/auth/login/2fa', target: { kind: 'local', handler: 'login_2fa' }, public: true, methods: ['POST'] },
  // Issue 15 item 1: auth's refresh tokens, then the realm's (svc-web-password) when auth does not know the token.
  { pattern: '/v1/auth/refresh', target: { kind: 'local', handler: 'refresh' }, public: true, methods: ['POST'] },
  { pattern: '/v1/auth/installer-handoff', target: proxy('auth'), public: true, methods: ['POST'] },
  { pattern: '/v1/auth/*', target: proxy('auth') },
  { pattern: '/auth/.well-known/*', target: proxy('auth', (p) => p.slice('/auth'.length)), public: true, methods: ['GET'] },
  { pattern: '/dirauth/.well-known/*', target: proxy('dirauth', (p) => p.slice('/dirauth'.length)), public: true, methods: ['GET'] },
  // The phone has no bearer: the enrollment token or a device-key proof is its credential (issue 14).
  { pattern: '/dirauth/pair/*', target: proxy('auth'), public: true, endless: true },
  // The embedded OpenID Connect provider (issue 15 item 1): it authenticates its own clients; path unchanged.
  { pattern: '/idp/*', target: proxy('auth'), public: true, credentials: true },
  { pattern: '/v1/oauth/{provider_slug}/callback', target: proxy('agent-runtime'), public: true, methods: ['GET'] },
  { pattern: '/v1/webhook', target: proxy('agent-runtime'), public: true },
  { pattern: '/v1/webhook/*', target: proxy('agent-runtime'), public: true },
  // Accounts.
  { pattern: '/v1/user/me', target: proxy('auth') },
  { pattern: '/v1/account/devices', target: proxy('auth') },
  { pattern: '/v1/account/devices/*', target: proxy('auth') },
  // Gateway-owned admin.
  { pattern: '/v1/admin/status', target: { kind: 'local', handler: 'status' }, methods: ['GET'] },
  { pattern: '/v1/admin/services', target: { kind: 'local', handler: 'status' }, methods: ['GET'] },
  // Issue 19 item 2: backups and restore (routes/backups.ts).
  { pattern: '/v1/admin/backups', target: { kind: 'local', handler: 'backups' } },
  { pattern: '/v1/admin/backups/*', target: { kind: 'local', handler: 'backups' } },
  // Keys (issue 19 item 3): routes/keys.ts over the supervisor's key channel.
  { pattern: '/v1/admin/secrets', target: { kind: 'local', handler: 'keys' } },
  { pattern: '/v1/admin/secrets/*', target: { kind: 'local', handler: 'keys' } },
  // Operating the workstation (issue 19 items 1, 4, 5): routes/ops.ts over the supervisor's control channel.
  ...['topology', 'stack', 'deploy', 'update', 'jobs'].flatMap((p): RouteRule[] => [
    { pattern: `/v1/admin/${p}`, target: { kind: 'local', handler: 'ops' } },
    { pattern: `/v1/admin/${p}/*`, target: { kind: 'local', handler: 'ops' } },
  ]),
  { pattern: '/v1/admin/services/*', target: { kind: 'local', handler: 'ops' } },
  // Upstream SSO IdPs (issue 15 item 2): the embedded IdP counts as the configured IdP, so the
  // surface is mounted by default; the admin guard still runs before it.
  { pattern: '/v1/admin/sso/idps', target: proxy('auth') },
  { pattern: '/v1/admin/sso/idps/*', target: proxy('auth') },
  { pattern: '/v1/admin/users', target: proxy('auth') },
  { pattern: '/v1/admin/users/*', target: proxy('auth') },
  { pattern: '/v1/admin/auth/dirauth', target: proxy('dirauth') },
  { pattern: '/v1/admin/auth/dirauth/*', target: proxy('dirauth') },
  { pattern: '/v1/admin/auth/sign-ins', target: proxy('auth'), methods: ['GET'] },
  { pattern: '/v1/admin/inference/*', target: proxy('inference-router', (p) => `/v1/internal/${p.slice('/v1/admin/inference/'.length)}`) },
  { pattern: '/v1/admin/egress/*', target: proxy('inference-router', (p) => `/v1/internal/egress/${p.slice('/v1/admin/egress/'.length)}`) },
  { pattern: '/v1/admin/audit', target: proxy('audit') },
  { pattern: '/v1/admin/audit/*', target: proxy('audit') },
  { pattern: '/v1/admin/observability/*', target: proxy('observability') },
  { pattern: '/v1/admin/*', target: proxy('agent-runtime') },
  // Chat and inference.
  { pattern: '/v1/chat/agui/stream', target: { kind: 'local', handler: 'agui' } },
  { pattern: '/v1/chat/completions', target: proxy('inference-router') },
  { pattern: '/v1/embeddings', target: proxy('inference-router') },
  { pattern: '/v1/models', target: proxy('inference-router') },
  { pattern: '/v1/models/*', target: proxy('inference-router') },
  { pattern: '/v1/routes', target: proxy('inference-router') },
  // Owning services.
  { pattern: '/v1/memory', target: proxy('memory') },
  { pattern: '/v1/memory/*', target: proxy('memory') },
  { pattern: '/v1/knowledge', target: proxy('knowledge') },
  { pattern: '/v1/knowledge/*', target: proxy('knowledge') },
  { pattern: '/v1/guard', target: proxy('guardrail') },
  { pattern: '/v1/guard/*', target: proxy('guardrail') },
  { pattern: '/v1/sandbox', target: proxy('sandbox', () => '/') },
  { pattern: '/v1/sandbox/*', target: proxy('sandbox', (p) => p.slice('/v1/sandbox'.length)) },
  { pattern: '/v1/audit/turns/{turn_id}/replay/live', target: proxy('agent-runtime') },
  { pattern: '/v1/audit', target: proxy('audit') },
  { pattern: '/v1/audit/*', target: proxy('audit') },
  { pattern: '/v1/receipts', target: proxy('audit') },
  // The receipt signing public keys (issue 22 item 1, issue 19 item 3): anyone may fetch them.
  { pattern: '/v1/receipts/keys', target: proxy('audit'), public: true, methods: ['GET'] },
  // Signed chain checkpoints (issue 22 item 3): public like the keys (origin, seq and chain hash only).
  { pattern: '/v1/receipts/checkpoints/*', target: proxy('audit'), public: true, methods: ['GET'] },
  { pattern: '/v1/receipts/*', target: proxy('audit') },
  { pattern: '/v1/generations', target: proxy('observability') },
  { pattern: '/v1/generations/*', target: proxy('observability') },
  { pattern: '/v1/prices', target: proxy('observability') },
  { pattern: '/v1/prices/*', target: proxy('observability') },
  // Agents and skills (issue 17 items 1, 2; spec "Agent runtime surfaces").
  { pattern: '/v1/agents', target: proxy('agent-runtime') },
  { pattern: '/v1/agents/*', target: proxy('agent-runtime') },
  { pattern: '/v1/skills', target: proxy('agent-runtime') },
  { pattern: '/v1/skills/*', target: proxy('agent-runtime') },
  // MCP servers and plugins (issue 17 items 3, 4; spec "Agent runtime surfaces"); bodies under the runtime's own limit.
  { pattern: '/v1/admin/mcp-servers', target: proxy('agent-runtime') },
  { pattern: '/v1/admin/mcp-servers/*', target: proxy('agent-runtime') },
  { pattern: '/v1/user/mcp-servers', target: proxy('agent-runtime') },
  { pattern: '/v1/user/mcp-servers/*', target: proxy('agent-runtime') },
  { pattern: '/v1/user/plugins', target: proxy('agent-runtime') },
  { pattern: '/v1/admin/plugins', target: proxy('agent-runtime') },
  { pattern: '/v1/admin/plugins/*', target: proxy('agent-runtime') },
  // Reserved gateway patterns with no backing route (spec: Versioning 5).
  { pattern: '/v1/connectors', target: { kind: 'local', handler: 'reserved' } },
  { pattern: '/v1/connectors/*', target: { kind: 'local', handler: 'reserved' } },
  { pattern: '/v1/workflows', target: { kind: 'local', handler: 'reserved' } },
  { pattern: '/v1/workflows/*', target: { kind: 'local', handler: 'reserved' } },
  // Catch-all: the agent runtime owns the rest of /v1.
  { pattern: '/v1/*', target: proxy('agent-runtime') },
];

interface Compiled { rule: RouteRule; re: RegExp; rank: number; methods: Set<string> | null }

/** A compiled, ranked route table with a small lookup cache. */
export class RouteTable {
  private readonly compiled: Compiled[];
  private readonly cache = new Map<string, RouteRule | null>();

  constructor(rules: readonly RouteRule[] = ROUTES) {
    this.compiled = rules.map((rule) => {
      const prefix = rule.pattern.endsWith('/*');
      const body = prefix ? rule.pattern.slice(0, -2) : rule.pattern;
      const src = body.split('/').map((seg) => (/^\{[a-z_]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
      const re = new RegExp(`^${src}${prefix ? '/.*' : ''}$`);
      const literal = body.replace(/\{[a-z_]+\}/g, '').length;
      // Exact patterns outrank prefix patterns of the same literal length.
      return { rule, re, rank: literal * 2 + (prefix ? 0 : 1), methods: rule.methods ? new Set(rule.methods) : null };
    }).sort((a, b) => b.rank - a.rank);
  }

  /** The winning rule for `method` + `path` (no query string), or null. */
  match(method: string, path: string): RouteRule | null {
    const key = `${method} ${path}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    let found: RouteRule | null = null;
    for (const c of this.compiled) {
      if (c.methods && !c.methods.has(method)) continue;
      if (c.re.test(path)) { found = c.rule; break; }
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, found);
    return found;
  }
}
