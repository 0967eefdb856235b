/**
 * Public surface of the code sandbox service (port 8006; spec "Code sandbox", the sandbox rows of
 * "Limits", "Sandbox backends"; issue 12 pins the request bodies the spec leaves open).
 *
 * Routes (the gateway strips `/v1/sandbox`; through the gateway the tenant comes from the principal
 * and a body's `tenant_id` must equal it or is replaced by it):
 * - `POST /execute` body `ExecuteRequest` -> 200 `RunResult` (Python; state kept across calls of a session)
 * - `POST /bash` body `BashRequest` -> 200 `RunResult`
 * - `POST /read` body `ReadRequest` -> 200 `ReadResponse` (text, offset/limit in lines)
 * - `POST /read_binary` body `ReadBinaryRequest` -> 200 `ReadBinaryResponse` (base64 + MIME type)
 * - `POST /write` body `WriteRequest` -> 200 `WriteResponse`
 * - `POST /grep` body `GrepRequest` -> 200 `GrepResponse`
 * - `POST /glob` body `GlobRequest` -> 200 `GlobResponse`
 * - `GET /sessions` (admin) -> 200 `SessionList`
 * - `DELETE /sessions/{tenant_id}/{session_id}` (admin) -> 204
 * - `POST /sessions/{tenant_id}/{session_id}/copy` body `CopyRequest` -> 200 `CopyResponse`
 * - `/healthz`, `/readyz` (with `SandboxReadiness` fields), `/metrics`
 *
 * Node-free: the agent runtime and the renderer import types and values from this file only.
 */
import { Type, type Static } from '../../shared/kit/typebox.js';
import { OrNull, StringEnum } from '../../shared/kit/schema.js';
import type { ErrorTable } from '../../shared/kit/domain-error.js';
import type { CommonServiceConfig } from '../../shared/config.js';

/**
 * Error codes of the sandbox service and their HTTP statuses, beside the shared ones
 * (`invalid_request`, `admin_required`, `principal_missing`, ...). Every error body is `{error, code}`.
 *
 * | code | status | when |
 * |---|---|---|
 * | `sandbox_unavailable` | 503 | no Docker engine answers; the body's `fix` says what to run |
 * | `sandbox_image_missing` | 503 | the sandbox image is not built; the body's `fix` names `npm run sandbox:image` |
 * | `session_limit_reached` | 503 | `SANDBOX_MAX_SESSIONS` sessions are live and every one is busy (idle ones are evicted instead) |
 * | `session_not_found` | 404 | DELETE of a session that does not exist |
 * | `invalid_path` | 400 | absolute path, null byte, `..`, or an empty path |
 * | `path_outside_workspace` | 400 | the path resolves (in the container's view) outside the workspace |
 * | `file_not_found` | 404 | read of a file that does not exist |
 * | `not_a_file` | 400 | read of a directory or special file |
 * | `file_too_large` | 413 | read_binary of a file over the limit, or a write/copy over the limit |
 * | `invalid_pattern` | 400 | grep pattern that is not a valid regular expression |
 * | `runner_failed` | 502 | the in-container runner died or answered garbage; the session is restarted |
 */
export const SANDBOX_ERRORS = {
  sandbox_unavailable: 503,
  sandbox_image_missing: 503,
  session_limit_reached: 503,
  session_not_found: 404,
  invalid_path: 400,
  path_outside_workspace: 400,
  file_not_found: 404,
  not_a_file: 400,
  file_too_large: 413,
  invalid_pattern: 400,
  runner_failed: 502,
} as const satisfies ErrorTable;
/** A sandbox error code. */
export type SandboxErrorCode = keyof typeof SANDBOX_ERRORS;

/** Largest request body the service accepts, bytes (a `/write` or `/copy` of base64 files). */
export const SANDBOX_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/** Largest `code` / `command`, characters. */
export const MAX_CODE_CHARS = 1_000_000;
/** Most files in one `/copy`. */
export const MAX_COPY_FILES = 100;
/** Default timeout of `/execute` and `/bash`, seconds (issue 12: default 30, capped by configuration). */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** Docker container runtimes a session may run under (issue 12 "Kernel isolation"). */
export const CONTAINER_RUNTIMES = ['runsc', 'runc'] as const;
/** A container runtime. */
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number];

const TenantId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:@-]+$' });
const SessionId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:@-]+$' });
/** A workspace-relative path (the domain refuses absolute paths, NUL and `..`, with `invalid_path`). */
const WorkspacePath = Type.String({ minLength: 1, maxLength: 1024 });
const Timeout = Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'seconds; default 30, capped by SANDBOX_MAX_TIMEOUT' }));
const Encoding = Type.Optional(StringEnum(['utf8', 'base64'] as const));

/** The (tenant, session) pair every file and run route names. */
export const SessionRefSchema = Type.Object({ tenant_id: TenantId, session_id: SessionId });
/** A (tenant, session) pair. */
export type SessionRef = Static<typeof SessionRefSchema>;

/** Body of `POST /execute` (issue 12 pins it). */
export const ExecuteRequestSchema = Type.Object({
  code: Type.String({ maxLength: MAX_CODE_CHARS }),
  language: StringEnum(['python'] as const),
  tenant_id: TenantId,
  session_id: SessionId,
  timeout: Timeout,
});
/** Body of `POST /execute`. */
export type ExecuteRequest = Static<typeof ExecuteRequestSchema>;

/** Body of `POST /bash` (issue 12 pins it). */
export const BashRequestSchema = Type.Object({
  command: Type.String({ minLength: 1, maxLength: MAX_CODE_CHARS }),
  tenant_id: TenantId,
  session_id: SessionId,
  timeout: Timeout,
});
/** Body of `POST /bash`. */
export type BashRequest = Static<typeof BashRequestSchema>;

/** A file a run produced in the workspace's `output/` folder (matplotlib figures included). */
export const SandboxArtifactSchema = Type.Object({
  /** Workspace-relative path, e.g. `output/figure-20261123-101500-1.png`. */
  name: Type.String(),
  mime: Type.String(),
  bytes: Type.Integer({ minimum: 0 }),
  /** Lowercase hex SHA-256 of the file. */
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
/** A produced file. */
export type SandboxArtifact = Static<typeof SandboxArtifactSchema>;

/** The exception of a failed `/execute`. */
export const RunErrorSchema = Type.Object({ name: Type.String(), message: Type.String(), traceback: Type.String() });

/** 200 body of `/execute` and `/bash`. */
export const RunResultSchema = Type.Object({
  tenant_id: Type.String(),
  session_id: Type.String(),
  stdout: Type.String(),
  stderr: Type.String(),
  /** 0 on success; 1 for a Python exception; the shell's status for bash (124 after a timeout). */
  exit_code: Type.Integer(),
  /** The exception with its traceback (execute), else null. */
  error: OrNull(RunErrorSchema),
  timed_out: Type.Boolean(),
  /** Wall time of the call inside the runner, ms. */
  duration_ms: Type.Number(),
  artifacts: Type.Array(SandboxArtifactSchema),
  /** True when the runner had to be restarted (a call stuck past its timeout): the session's variables are gone. */
  restarted: Type.Boolean(),
  /** The container runtime the session runs under. */
  runtime: StringEnum(CONTAINER_RUNTIMES),
});
/** Result of a run. */
export type RunResult = Static<typeof RunResultSchema>;

/** Body of `POST /read` (offset and limit in lines; limit default 2000, at most 10000). */
export const ReadRequestSchema = Type.Object({
  tenant_id: TenantId,
  session_id: SessionId,
  path: WorkspacePath,
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
});
/** Body of `POST /read`. */
export type ReadRequest = Static<typeof ReadRequestSchema>;
/** 200 body of `POST /read`. */
export const ReadResponseSchema = Type.Object({
  path: Type.String(),
  content: Type.String(),
  offset: Type.Integer(),
  /** Lines in `content`. */
  lines: Type.Integer(),
  total_lines: Type.Integer(),
  /** More lines follow `offset + lines`. */
  truncated: Type.Boolean(),
});
/** 200 body of `POST /read`. */
export type ReadResponse = Static<typeof ReadResponseSchema>;

/** Body of `POST /read_binary`. */
export const ReadBinaryRequestSchema = Type.Object({ tenant_id: TenantId, session_id: SessionId, path: WorkspacePath });
/** Body of `POST /read_binary`. */
export type ReadBinaryRequest = Static<typeof ReadBinaryRequestSchema>;
/** 200 body of `POST /read_binary`. */
export const ReadBinaryResponseSchema = Type.Object({
  path: Type.String(),
  content_base64: Type.String(),
  mime: Type.String(),
  bytes: Type.Integer(),
  sha256: Type.String(),
});
/** 200 body of `POST /read_binary`. */
export type ReadBinaryResponse = Static<typeof ReadBinaryResponseSchema>;

/** Body of `POST /write` (issue 12 pins it). */
export const WriteRequestSchema = Type.Object({
  tenant_id: TenantId,
  session_id: SessionId,
  path: WorkspacePath,
  content: Type.String(),
  encoding: Encoding,
});
/** Body of `POST /write`. */
export type WriteRequest = Static<typeof WriteRequestSchema>;
/** 200 body of `POST /write`. */
export const WriteResponseSchema = Type.Object({ path: Type.String(), bytes: Type.Integer() });
/** 200 body of `POST /write`. */
export type WriteResponse = Static<typeof WriteResponseSchema>;

/** Body of `POST /grep` (`pattern` a Python regular expression; `path` a file or folder, default the workspace). */
export const GrepRequestSchema = Type.Object({
  tenant_id: TenantId,
  session_id: SessionId,
  pattern: Type.String({ minLength: 1, maxLength: 1000 }),
  path: Type.Optional(WorkspacePath),
});
/** Body of `POST /grep`. */
export type GrepRequest = Static<typeof GrepRequestSchema>;
/** 200 body of `POST /grep` (at most 1000 matches). */
export const GrepResponseSchema = Type.Object({
  matches: Type.Array(Type.Object({ path: Type.String(), line: Type.Integer(), text: Type.String() })),
  truncated: Type.Boolean(),
});
/** 200 body of `POST /grep`. */
export type GrepResponse = Static<typeof GrepResponseSchema>;

/** Body of `POST /glob` (`**` recursive). */
export const GlobRequestSchema = Type.Object({
  tenant_id: TenantId,
  session_id: SessionId,
  pattern: Type.String({ minLength: 1, maxLength: 1000 }),
});
/** Body of `POST /glob`. */
export type GlobRequest = Static<typeof GlobRequestSchema>;
/** 200 body of `POST /glob` (sorted, at most 1000 paths). */
export const GlobResponseSchema = Type.Object({ paths: Type.Array(Type.String()), truncated: Type.Boolean() });
/** 200 body of `POST /glob`. */
export type GlobResponse = Static<typeof GlobResponseSchema>;

/** Params of the session routes. */
export const SessionParamsSchema = SessionRefSchema;

/** Body of `POST /sessions/{tenant_id}/{session_id}/copy` (issue 12 pins it). */
export const CopyRequestSchema = Type.Object({
  files: Type.Array(Type.Object({ path: WorkspacePath, content: Type.String(), encoding: Encoding }), { minItems: 1, maxItems: MAX_COPY_FILES }),
});
/** Body of the copy route. */
export type CopyRequest = Static<typeof CopyRequestSchema>;
/** 200 body of the copy route. */
export const CopyResponseSchema = Type.Object({ written: Type.Array(WriteResponseSchema) });
/** 200 body of the copy route. */
export type CopyResponse = Static<typeof CopyResponseSchema>;

/** One live session as `GET /sessions` lists it. */
export const SessionInfoSchema = Type.Object({
  tenant_id: Type.String(),
  session_id: Type.String(),
  container_id: Type.String(),
  runtime: StringEnum(CONTAINER_RUNTIMES),
  /** `busy` while a call runs. */
  state: StringEnum(['idle', 'busy'] as const),
  /** RFC 3339 UTC. */
  created_at: Type.String(),
  /** RFC 3339 UTC. */
  last_used_at: Type.String(),
  /** Seconds since created. */
  age_seconds: Type.Number(),
  /** Seconds since the last call ended. */
  idle_seconds: Type.Number(),
  /** Container memory in use, bytes; null when the engine does not say. */
  memory_bytes: OrNull(Type.Integer()),
  /** The memory limit, bytes. */
  memory_limit_bytes: Type.Integer(),
});
/** One live session. */
export type SessionInfo = Static<typeof SessionInfoSchema>;
/** Extra `/readyz` fields: what backs the sandbox and, when it cannot run, the command that fixes it. */
export const SandboxReadinessSchema = Type.Object({
  backend: Type.String(),
  docker: StringEnum(['ok', 'unavailable'] as const),
  image: StringEnum(['ok', 'missing', 'unknown'] as const),
  /** The runtime new sessions run under (runsc where registered, else runc). */
  runtime: StringEnum(CONTAINER_RUNTIMES),
  network: StringEnum(['none', 'enabled'] as const),
  /** The command to run when `docker` or `image` is not ok, else null. */
  fix: OrNull(Type.String()),
});
/** Extra `/readyz` fields of the sandbox. */
export type SandboxReadiness = Static<typeof SandboxReadinessSchema>;

/** 200 body of `GET /sessions`. */
export const SessionListSchema = Type.Object({
  sessions: Type.Array(SessionInfoSchema),
  /** SANDBOX_MAX_SESSIONS. */
  max_sessions: Type.Integer(),
  /** Ready containers in the warm pool. */
  warm: Type.Integer(),
  /** What backs the sandbox now (the `/readyz` fields, also when it is not ready), for the admin view. */
  readiness: SandboxReadinessSchema,
});
/** 200 body of `GET /sessions`. */
export type SessionList = Static<typeof SessionListSchema>;

/** Settings of the sandbox service (main/config/services/sandbox.ts reads them; defaults there). */
export interface SandboxSettings {
  /** SANDBOX_BACKEND: only `docker` exists; another value is a clear startup error. */
  backend: 'docker';
  /** SANDBOX_IMAGE (default `svc-sandbox:latest`). */
  image: string;
  /** SANDBOX_RUNTIME: `runsc`, `runc`, or `auto` (runsc when registered with the engine, else runc). */
  runtime: ContainerRuntime | 'auto';
  /** SANDBOX_IDLE_TIMEOUT, seconds (900). */
  idleTimeoutSeconds: number;
  /** SANDBOX_MAX_SESSIONS (50). */
  maxSessions: number;
  /** SANDBOX_MEM_LIMIT, bytes (512m). */
  memLimitBytes: number;
  /** SANDBOX_CPUS, CPUs of quota per session (1). */
  cpus: number;
  /** SANDBOX_PIDS_LIMIT (128). */
  pidsLimit: number;
  /** SANDBOX_NETWORK_ENABLED (false: loopback only). */
  networkEnabled: boolean;
  /** SANDBOX_GPU_ENABLED (false). */
  gpuEnabled: boolean;
  /** SANDBOX_GPU_NETWORK_ENABLED (false; needs gpuEnabled). */
  gpuNetworkEnabled: boolean;
  /**
   * SVC_EGRESS_POLICY as the sandbox sees it (issue 19 item 6; absent = off). With egress control on,
   * sessions get no network: a container's traffic cannot yet be held to the workstation's proxy, and
   * nothing may leave unlogged.
   */
  egressPolicy?: 'off' | 'observe' | 'enforce';
  /** SANDBOX_MAX_TIMEOUT, seconds: the cap of a call's `timeout` (300). */
  maxTimeoutSeconds: number;
  /** SANDBOX_WARM_POOL: ready containers kept for new sessions (2; 0 disables). */
  warmPoolSize: number;
  /** DOCKER_HOST-style socket path of the engine (default /var/run/docker.sock). */
  dockerSocket: string;
  /**
   * SANDBOX_INSTANCE_URL (issue 21 item 3): where other sandbox instances reach this one when
   * `REDIS_URL` shares the session registry; null = this instance's bind address and port.
   */
  instanceUrl?: string | null;
}

/** The sandbox service's config slice: the common settings plus `SandboxSettings` (main/config). */
export type SandboxConfig = CommonServiceConfig & SandboxSettings;
