/**
 * The runtime's domain error: a `DomainError` whose code is one of the runtime's table
 * (contracts.ts `AGENT_RUNTIME_ERRORS`) or a common one. The HTTP status comes from that table.
 */
import { DomainError, type DomainErrorOptions } from '../../../shared/kit/domain-error.js';
import type { AgentRuntimeErrorCode } from '../contracts.js';

/**
 * A runtime error with a typed code.
 * @example throw runtimeError('session_not_found', `no session ${id}`)
 */
export function runtimeError(code: AgentRuntimeErrorCode, message: string, opts?: DomainErrorOptions): DomainError<AgentRuntimeErrorCode> {
  return new DomainError(code, message, opts);
}

/** 400 `invalid_request` naming the offending field (e.g. `body.messages.0.content`). */
export function invalidField(message: string, field: string): DomainError<AgentRuntimeErrorCode> {
  return new DomainError('invalid_request', message, { extra: { field } });
}
