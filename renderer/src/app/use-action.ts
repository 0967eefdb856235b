/**
 * `useAction()`: the one hook for the busy/error pattern of the pages (a button that calls the
 * server is disabled while it runs, and its error is shown under it). The rules are `action.ts`.
 *
 * @example
 * const verify = useAction<'verify' | 'export'>();
 * <button disabled={verify.busy} onClick={() => { void verify.run(doVerify, 'verify'); }}>
 * {verify.error && <p className="error" role="alert">{verify.error}</p>}
 */
import { useCallback, useState } from 'react';
import { IDLE, errorText, runAction, type ActionSnapshot } from './action';

export { errorText } from './action';

/** What `useAction` returns. */
export interface Action<T extends string> {
  /** The tag of the action running, or null. */
  pending: T | null;
  /** True while an action runs. */
  busy: boolean;
  /** Error text of the last failed action, null after a success or a new start. */
  error: string | null;
  /** Run `fn` (as `tag`); resolves true on success, false on failure (never rejects). */
  run(fn: () => Promise<unknown>, tag?: T): Promise<boolean>;
  /** Show (or clear, with null) an error without running anything. */
  fail(message: string | null): void;
}

/** Busy and error state of a view's actions. @param message turns a thrown value into the text shown. */
export function useAction<T extends string = 'run'>(message: (err: unknown) => string = errorText): Action<T> {
  const [s, set] = useState<ActionSnapshot<T>>(IDLE);
  const run = useCallback((fn: () => Promise<unknown>, tag?: T) => runAction<T>(fn, tag ?? ('run' as T), set, message), [message]);
  const fail = useCallback((error: string | null) => set((prev) => ({ ...prev, error })), []);
  return { pending: s.pending, busy: s.pending !== null, error: s.error, run, fail };
}
