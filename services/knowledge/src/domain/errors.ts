/** The knowledge domain's errors: a `DomainError` typed with the codes of `KNOWLEDGE_ERRORS` (contracts.ts). */
import { DomainError, type DomainErrorOptions } from '../../../shared/kit/domain-error.js';
import type { KnowledgeErrorCode } from '../contracts.js';

export { invalidInput, notFoundError } from '../../../shared/kit/domain-error.js';

/** A knowledge error: the HTTP status comes from `KNOWLEDGE_ERRORS`, extra body fields from `opts.extra`. */
export function knowledgeError(code: KnowledgeErrorCode, message: string, opts: DomainErrorOptions = {}): DomainError<KnowledgeErrorCode> {
  return new DomainError<KnowledgeErrorCode>(code, message, opts);
}

/** True when `err` is the knowledge error `code`. */
export function isKnowledgeError(err: unknown, code: KnowledgeErrorCode): err is DomainError<KnowledgeErrorCode> {
  return err instanceof DomainError && err.code === code;
}
