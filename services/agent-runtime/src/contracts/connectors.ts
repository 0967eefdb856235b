/**
 * Knowledge connector contracts (spec "Connector administration"; issue 18 item 3), admin only:
 * - `GET /v1/admin/context/connectors` -> `{connectors: ConnectorView[]}`; `POST` `ConnectorCreate` -> 201 `ConnectorView`
 * - `GET|PUT|PATCH|DELETE /v1/admin/context/connectors/{connector_id}` (PUT `ConnectorCreate`, PATCH `ConnectorPatch`; DELETE 204
 *   and the connector's knowledge documents are deleted)
 * - `POST .../{connector_id}/check` -> `ConnectorCheck`; `GET .../surfaces` -> `{surfaces}`; `POST .../surfaces {selected}`
 * - `GET .../{connector_id}/documents` -> `{documents: ConnectorDocument[]}`
 * - `POST /v1/admin/context/sync {connector_id?}` -> 202 `{job_id}`; `GET /v1/admin/context/sync/{job_id}` -> `SyncJobView`
 * - `GET /v1/admin/connector-capabilities` -> `{capabilities}`; `GET /v1/admin/connector-capabilities/{kind}`
 * A folder's `config` is `{path}` (absolute path on the workstation); an IMAP mailbox's `{host, port, tls,
 * username, password_secret | access_token_secret, mailboxes?}` where the credential names a tenant secret (a password,
 * or an OAuth 2.0 access token for SASL XOAUTH2; never resolved in answers).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum, Timestamp } from './atoms.js';

/** Error codes of the connector surfaces (spread into `AGENT_RUNTIME_ERRORS`). */
export const CONNECTOR_ERRORS = {
  /** No such connector in the tenant. */
  connector_not_found: 404,
  /** A config that does not fit the kind (missing path, relative path, bad port, bad secret name, ...). */
  connector_config_invalid: 400,
  /** No such sync job in the tenant. */
  sync_job_not_found: 404,
  /** Issue 19 item 5: cancel of a job that already ended. */
  sync_job_finished: 409,
  /** A capabilities route naming a kind that does not exist. */
  connector_kind_unknown: 404,
} as const;

/** Connector kinds. */
export const CONNECTOR_KINDS = ['folder', 'imap'] as const;
/** A connector kind. */
export const ConnectorKindSchema = StringEnum(CONNECTOR_KINDS);
/** A connector kind. */
export type ConnectorKind = Static<typeof ConnectorKindSchema>;

/** Knowledge visibility the connector gives its documents (knowledge's modes; never widened by a sync). */
export const ConnectorVisibilitySchema = StringEnum(['private', 'restricted', 'shared'] as const);

const Tag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$' });
const UserId = Type.String({ minLength: 1, maxLength: 256 });

/** Free-form config object; checked per kind by the domain (400 `connector_config_invalid`). */
export const ConnectorConfigSchema = Type.Record(Type.String(), Type.Unknown());

/** Body of `POST /v1/admin/context/connectors` and `PUT .../{connector_id}`. */
export const ConnectorCreateSchema = Type.Object({
  kind: ConnectorKindSchema,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  config: ConnectorConfigSchema,
  visibility_mode: Type.Optional(ConnectorVisibilitySchema),
  audience_tags: Type.Optional(Type.Array(Tag, { maxItems: 100 })),
  user_grants: Type.Optional(Type.Array(UserId, { maxItems: 1000 })),
  /** Minutes between scheduled syncs; absent or null = on demand only. */
  schedule_minutes: Type.Optional(OrNull(Type.Integer({ minimum: 1, maximum: 10_080 }))),
}, { additionalProperties: false });
/** Body of a connector create or replace. */
export type ConnectorCreate = Static<typeof ConnectorCreateSchema>;

/** Body of `PATCH .../{connector_id}`: any subset except `kind`. */
export const ConnectorPatchSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  config: Type.Optional(ConnectorConfigSchema),
  visibility_mode: Type.Optional(ConnectorVisibilitySchema),
  audience_tags: Type.Optional(Type.Array(Tag, { maxItems: 100 })),
  user_grants: Type.Optional(Type.Array(UserId, { maxItems: 1000 })),
  schedule_minutes: Type.Optional(OrNull(Type.Integer({ minimum: 1, maximum: 10_080 }))),
}, { additionalProperties: false });
/** Body of a connector patch. */
export type ConnectorPatch = Static<typeof ConnectorPatchSchema>;

/** A connector as the admin routes show it. */
export const ConnectorViewSchema = Type.Object({
  id: Type.String(),
  kind: ConnectorKindSchema,
  name: Type.String(),
  config: ConnectorConfigSchema,
  visibility_mode: ConnectorVisibilitySchema,
  audience_tags: Type.Array(Type.String()),
  user_grants: Type.Array(Type.String()),
  schedule_minutes: OrNull(Type.Integer()),
  /** `idle`, `syncing`, `error` (the last sync failed as a whole). */
  status: Type.String(),
  last_sync_at: OrNull(Timestamp),
  last_error: OrNull(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A connector as the admin routes show it. */
export type ConnectorView = Static<typeof ConnectorViewSchema>;

/** `GET /v1/admin/context/connectors`. */
export const ConnectorListSchema = Type.Object({ connectors: Type.Array(ConnectorViewSchema) });

/** `{connector_id}` path parameter. */
export const ConnectorIdParams = Type.Object({ connector_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** `POST .../check`: whether the source answers; `error` a short reason (never a secret). */
export const ConnectorCheckSchema = Type.Object({
  ok: Type.Boolean(),
  error: Type.Optional(Type.String()),
  /** What was checked (a folder's file count, a mailbox server's greeting and mailbox count). */
  detail: Type.String(),
});
/** Result of a connector check. */
export type ConnectorCheck = Static<typeof ConnectorCheckSchema>;

/** A part of the source the admin may select (a sub-folder, a mailbox). */
export const SurfaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: StringEnum(['folder', 'mailbox'] as const),
  selected: Type.Boolean(),
  /** Files or messages in it, when known. */
  items: Type.Optional(Type.Integer()),
});
/** A surface of a connector. */
export type Surface = Static<typeof SurfaceSchema>;

/** `GET .../surfaces` and the answer of `POST .../surfaces`. */
export const SurfaceListSchema = Type.Object({ surfaces: Type.Array(SurfaceSchema) });
/** Body of `POST .../surfaces`: the ids to sync (replaces the selection). */
export const SurfaceSelectSchema = Type.Object({ selected: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }) }, { additionalProperties: false });

/** One synced item of a connector (a file, a message, an attachment). */
export const ConnectorDocumentSchema = Type.Object({
  path_or_uid: Type.String(),
  document_id: OrNull(Type.String()),
  /** `indexed` or `failed`. */
  status: Type.String(),
  last_error: OrNull(Type.String()),
  synced_at: Timestamp,
});
/** One synced item of a connector. */
export type ConnectorDocument = Static<typeof ConnectorDocumentSchema>;
/** `GET .../documents`. */
export const ConnectorDocumentListSchema = Type.Object({ documents: Type.Array(ConnectorDocumentSchema) });

/** Body of `POST /v1/admin/context/sync`: one connector, or all of the tenant when absent. */
export const SyncRequestSchema = Type.Object({ connector_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false });
/** 202 of `POST /v1/admin/context/sync`. */
export const SyncAcceptedSchema = Type.Object({ job_id: Type.String() });
/** `{job_id}` path parameter. */
export const SyncJobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** A sync job's state. */
export const SyncJobViewSchema = Type.Object({
  job_id: Type.String(),
  connector_id: OrNull(Type.String()),
  state: StringEnum(['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const),
  /** Items to add, change or delete in this run; `done` includes `failed`. */
  progress: Type.Object({ total: Type.Integer(), done: Type.Integer(), failed: Type.Integer() }),
  started_at: OrNull(Timestamp),
  finished_at: OrNull(Timestamp),
  error: OrNull(Type.String()),
});
/** A sync job's state. */
export type SyncJobView = Static<typeof SyncJobViewSchema>;
/** `GET /v1/admin/context/sync`: the tenant's newest sync jobs (issue 19 item 5). */
export const SyncJobListSchema = Type.Object({ jobs: Type.Array(SyncJobViewSchema) });
/** `?limit=` of the job list (1-500, default 100). */
export const SyncJobListQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });

/** What a connector kind supports. */
export const CapabilitySchema = Type.Object({
  kind: ConnectorKindSchema,
  incremental: Type.Boolean(),
  deletions: Type.Boolean(),
  attachments: Type.Boolean(),
  surfaces: Type.Boolean(),
  auth: Type.Array(Type.String()),
});
/** What a connector kind supports. */
export type Capability = Static<typeof CapabilitySchema>;
/** `GET /v1/admin/connector-capabilities`. */
export const CapabilityListSchema = Type.Object({ capabilities: Type.Array(CapabilitySchema) });
/** `{kind}` path parameter of the capabilities route. */
export const CapabilityParams = Type.Object({ kind: Type.String({ maxLength: 32 }) });

/** The capabilities of each kind (spec "Connector administration"). */
export const CONNECTOR_CAPABILITIES: readonly Capability[] = [
  { kind: 'folder', incremental: true, deletions: true, attachments: false, surfaces: true, auth: ['none'] },
  { kind: 'imap', incremental: true, deletions: true, attachments: true, surfaces: true, auth: ['password_secret', 'access_token_secret'] },
];
