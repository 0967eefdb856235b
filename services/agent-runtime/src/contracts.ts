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
