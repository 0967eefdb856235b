/**
 * Workspace path checks made before a request reaches the runner (spec "Sandbox backends": text read
 * and write paths reject absolute paths, null bytes and `..` traversal; issue 12 "Files"). The
 * runner checks again and resolves the path in the container's own view (symlinks included), so a
 * link made by code in the container never leads a route outside the workspace.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { SandboxErrorCode } from '../contracts.js';

/**
 * Refuse a workspace path that is empty, holds a NUL, is absolute (`/x`, `\x`, `C:x`) or has a
 * `..` segment (either separator).
 * @param field the request field, named in the message.
 * @throws DomainError `invalid_path`.
 */
export function checkWorkspacePath(path: string, field = 'path'): string {
  const refuse = (why: string): never => { throw new DomainError<SandboxErrorCode>('invalid_path', `${field} ${why}`, { extra: { field } }); };
  if (path.length === 0) refuse('must not be empty');
  if (path.includes('\u0000')) refuse('must not contain a null byte');
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) refuse('must be relative to the workspace');
  if (path.split(/[\\/]/).includes('..')) refuse("must not contain '..'");
  return path;
}

/**
 * Refuse a glob pattern that leaves the workspace the same way (absolute, `..`, NUL); wildcards are
 * allowed. @throws DomainError `invalid_path`.
 */
export function checkGlobPattern(pattern: string): string {
  return checkWorkspacePath(pattern, 'pattern');
}
