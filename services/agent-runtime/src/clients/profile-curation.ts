/**
 * The `profile_curation` role through the inference router (issue 13 item 2). Whether the role is
 * mapped is read from the router's `GET /v1/models`, which lists every configured role alias with
 * `svc_role: true` (a role without targets is absent; spec "Inference router"). The call itself is
 * a chat completion with `model: "profile_curation"` and a `json_schema` answer format; a provider
 * that refuses the answer format (400 or 422) is asked once more without it (the answer is
 * validated by the domain either way).
 */
import type { CurationModelPort } from '../domain/profile/curation.js';
import { PROFILE_CURATION_ROLE } from '../domain/profile/curation.js';
import { InferenceError } from '../domain/inference-errors.js';
import type { ModelPort, ModelRequest, OpenAiMessage } from '../domain/ports.js';
import { callJson } from './http.js';

/** Longest curation answer asked for, tokens. */
const MAX_TOKENS = 512;

/** Headers sent to the router for the role check (the stamped identity; never the body). */
const CHECK_HEADERS = ['x-svc-principal', 'x-correlation-id'] as const;

/** `CurationModelPort` over the router at `baseUrl` and the runtime's model client. */
export class ProfileCurationClient implements CurationModelPort {
  constructor(private readonly baseUrl: string, private readonly model: ModelPort, private readonly timeoutMs: number) {}

  async roleMapped(headers: Record<string, string>, signal?: AbortSignal): Promise<boolean> {
    const h: Record<string, string> = {};
    for (const k of CHECK_HEADERS) if (headers[k]) h[k] = headers[k];
    try {
      const r = await callJson(`${this.baseUrl}/v1/models`, { headers: h, timeoutMs: this.timeoutMs, signal });
      if (r.status !== 200) return false;
      const data = (r.body as { data?: unknown } | null)?.data;
      return Array.isArray(data) && data.some((m) => {
        const x = m as { id?: unknown; svc_role?: unknown } | null;
        return x?.id === PROFILE_CURATION_ROLE && x.svc_role === true;
      });
    } catch {
      return false;
    }
  }

  async complete(messages: OpenAiMessage[], schema: object, headers: Record<string, string>, signal?: AbortSignal): Promise<string> {
    const base: ModelRequest = { model: PROFILE_CURATION_ROLE, messages, max_tokens: MAX_TOKENS, temperature: 0 };
    const withFormat = { ...base, response_format: { type: 'json_schema', json_schema: { name: 'profile_changes', strict: true, schema } } } as ModelRequest;
    try {
      return (await this.model.stream(withFormat, headers, {}, signal)).content;
    } catch (err) {
      if (!(err instanceof InferenceError) || (err.status !== 400 && err.status !== 422)) throw err;
      return (await this.model.stream(base, headers, {}, signal)).content;
    }
  }
}
