/**
 * Public surface of the agent runtime (DESIGN.md "Inside a service": `contracts.ts`): its settings,
 * request and response schemas (TypeBox) with the types derived from them, stream events, the tool
 * plug-in contract and the error table. Other services and the renderer import from here only.
 * Node-free: the files under `contracts/` import nothing from Node or from non-contract modules.
 *
 * Routes (spec "Chat", "Agent runtime surfaces", "Audit and receipts"; all need a stamped principal):
 * - `POST /v1/chat` body `ChatRequest` -> 200 `ChatResponse`
 * - `POST /v1/chat/stream` body `ChatRequest` -> 200 `text/event-stream` of `StreamEventMap` records
 * - `/v1/sessions` (POST, GET ?q&folder_id&limit&cursor), `/v1/sessions/{id}` (GET, PATCH, DELETE),
 *   `POST /v1/sessions/{id}/branch`, `POST /v1/sessions/{id}/title`, `PUT /v1/sessions/{id}/folder`
 * - `/v1/folders` (POST, GET), `/v1/folders/{id}` (GET, PATCH, DELETE)
 * - `GET /v1/user/approvals?status`, `POST /v1/user/approvals/{id}/approve|reject`, `GET /v1/admin/approvals?status`
 * - `GET /v1/admin/policies/tools`, `PUT|DELETE /v1/admin/policies/tools/{tool}` (admin)
 * - `GET /v1/tools` (tools visible to the caller with their effective policy)
 * - `POST /v1/audit/turns/{turn_id}/replay/live` -> 200 `LiveReplayResponse`
 * - admin (issue 13 item 8; contracts/admin.ts, admin-access.ts, agentops.ts): `GET /v1/admin/mission-control`,
 *   `GET /v1/admin/onboarding/checklist`, `GET /v1/admin/policies`, `GET|PUT|DELETE /v1/admin/policies/guardrail`,
 *   `GET /v1/admin/roles`, `GET /v1/admin/roles/effective`, `/v1/admin/roles/profiles[/{id}]` (CRUD), `GET /v1/admin/agentops/agents?days`
 * - `/v1/conversations*` durable conversations, items and runs (contracts/conversations.ts; off unless AGENT_RUNTIME_CONVERSATIONS_ENABLED)
 * - `GET /v1/notifications?limit&cursor`, `GET /v1/notifications/unread-count`, `GET /v1/notifications/stream` (SSE),
 *   `POST /v1/notifications/{id}/read`, `POST /v1/notifications/read-all`; `POST /v1/internal/notifications` (services)
 * - `GET|PUT /v1/user/profile`, `GET /v1/user/profile/draft`, `POST /v1/user/profile/draft/accept|dismiss` (contracts/profile.ts)
 * - `GET /v1/user/secrets`, `PUT|DELETE /v1/user/secrets/{name}`; admin `GET /v1/admin/tenant-secrets`, `PUT|DELETE /v1/admin/tenant-secrets/{name}` (contracts/secrets.ts)
 * - `GET /v1/context/turns/{turn_id}`, `GET /v1/context/turns/{turn_id}/trace` (contracts/context.ts; own turns, admins any in the tenant);
 *   `GET /v1/overview`, `GET /v1/user/integrations/status` (contracts/overview.ts; issue 13 items 5, 6)
 * - `GET|POST /v1/agents`, `GET|PUT|PATCH|DELETE /v1/agents/{id}` (contracts/agents.ts); `GET|POST /v1/skills`,
 *   `GET|PUT|DELETE /v1/skills/{id}`, `GET /v1/skills/{id}/versions` (contracts/skills.ts; issue 17 items 1, 2)
 */
export * from './contracts/atoms.js';
export * from './contracts/settings.js';
export * from './contracts/chat.js';
export * from './contracts/events.js';
export * from './contracts/sessions.js';
export * from './contracts/approvals.js';
export * from './contracts/replay.js';
export * from './contracts/tools.js';
export * from './contracts/errors.js';
export * from './contracts/context.js';
export * from './contracts/overview.js';
export * from './contracts/admin.js';
export * from './contracts/admin-access.js';
export * from './contracts/agentops.js';
export * from './contracts/conversations.js';
export * from './contracts/notifications.js';
export * from './contracts/profile.js';
export * from './contracts/secrets.js';
export * from './contracts/agents.js';
export * from './contracts/skills.js';
export * from './contracts/mcp.js';
export * from './contracts/oauth.js';
export * from './contracts/webhooks.js';
export * from './contracts/connectors.js';
