/**
 * Validation errors of the API by form field (issue 17 item 6). A schema failure answers 400
 * `{code: "invalid_request", field: "body.<path>"}` (services/shared/kit/errors.ts); this maps it to
 * the form's field key (`model_role`, `knowledge.tags`, `files`...), so the page shows the message
 * next to the field. Domain codes that belong to a field are mapped too (`forbidden` on create =
 * the scope). Anything else is a form-level error (key `''`).
 */
import { ApiError } from '../api/http';

/** Errors keyed by field (`''` = the whole form). */
export type FieldErrors = Record<string, string>;

/** Field key of a server `field` path: `body.knowledge.tags.0` -> `knowledge.tags`, `body.tools.2` -> `tools`. */
export function fieldKey(path: string, nested: readonly string[] = ['knowledge']): string {
  const parts = path.replace(/^(body|params|querystring)\.?/, '').split('.').filter(Boolean);
  if (parts.length === 0) return '';
  const [head, next] = parts;
  return head && nested.includes(head) && next && !/^\d+$/.test(next) ? `${head}.${next}` : head!;
}

/**
 * The readable part of a schema message: its first clause without the instance path
 * (`body/guardrail_policy must NOT have more than 128 characters, body/... must be null` ->
 * `must NOT have more than 128 characters`).
 */
export function fieldMessage(message: string): string {
  const first = message.split(/, (?=(?:body|params|querystring)[/.])/)[0] ?? message;
  return first.replace(/^(body|params|querystring)(\/[^\s]*)?\s+/, '');
}

/** The errors of a thrown value by field; `codes` maps domain codes to a field key. */
export function fieldErrors(err: unknown, codes: Record<string, string> = {}): FieldErrors {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError) {
    const key = err.field ? fieldKey(err.field) : '';
    if (key) return { [key]: fieldMessage(message) };
    const byCode = codes[err.code];
    if (byCode !== undefined) return { [byCode]: message };
  }
  return { '': message };
}
