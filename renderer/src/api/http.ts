/**
 * The one way the renderer talks to the gateway: same-origin relative URLs (`/v1/...`; the Electron
 * shell proxies `app://svc/v1/*` to the loopback gateway), JSON in and out, bearer from the token
 * keeper, one refresh-and-retry on 401, errors as `ApiError` with the server's stable `code`.
 */
import { tokens } from './tokens';

/** This device's IANA time zone, sent as `X-User-Timezone` (null when the browser does not say). */
const TIME_ZONE: string | null = (() => { try { return Intl.DateTimeFormat().resolvedOptions().timeZone || null; } catch { return null; } })();

/** An error answer of the gateway (`{error, code}`), or a network failure (`status` 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The request field a validation error names (`body.model_role`), when the server says. */
  readonly field: string | null;
  constructor(status: number, code: string, message: string, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** Turn a non-2xx answer into an ApiError (reads the body). */
export async function errorOf(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  let field: string | null = null;
  try {
    const body = await res.json() as { error?: unknown; code?: unknown; message?: unknown; field?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.field === 'string') field = body.field;
    if (typeof body.error === 'string') message = body.error;
    else if (typeof body.message === 'string') message = body.message;
    else if (body.error && typeof body.error === 'object' && typeof (body.error as { message?: unknown }).message === 'string') message = (body.error as { message: string }).message;
  } catch { /* not JSON: keep the status text */ }
  return new ApiError(res.status, code, message, field);
}

/** Options of `api()`. */
export interface ApiOptions extends Omit<RequestInit, 'body'> {
  /** JSON body (serialised here). */
  json?: unknown;
  /** Skip the bearer (public auth routes). */
  anonymous?: boolean;
}

/**
 * Authorised fetch. Refreshes the access token first when it is about to expire; on 401 refreshes
 * once and retries; a second 401 signs the user out (the app then shows the sign-in screen).
 * @throws ApiError
 */
export async function apiFetch(path: string, opts: ApiOptions = {}): Promise<Response> {
  const { json, anonymous, headers, ...rest } = opts;
  const build = async (): Promise<RequestInit> => {
    const h = new Headers(headers);
    if (json !== undefined) h.set('content-type', 'application/json');
    if (!anonymous) {
      const t = await tokens.accessToken();
      if (t) h.set('authorization', `Bearer ${t}`);
      // Seeds the profile's time zone on first contact (spec "Identity headers"; issue 13 item 2).
      if (TIME_ZONE && !h.has('x-user-timezone')) h.set('x-user-timezone', TIME_ZONE);
    }
    return { ...rest, headers: h, body: json === undefined ? undefined : JSON.stringify(json) };
  };
  let res: Response;
  try {
    res = await fetch(path, await build());
    if (res.status === 401 && !anonymous) {
      if (await tokens.refresh()) res = await fetch(path, await build());
      if (res.status === 401) tokens.signedOut('Your session ended. Sign in again.');
    }
  } catch (err) {
    if ((err as { name?: string }).name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'The gateway cannot be reached.');
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

/** JSON request. @throws ApiError */
export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const res = await apiFetch(path, opts);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
