/**
 * The busy/error pattern of a user action (a button that calls the server), as a plain function
 * over a state setter: mark it running and clear the last error, run it, then record the error text
 * or nothing. `use-action.ts` binds it to React; this module is unit-tested in Node.
 */

/** What a view shows about its actions: which one runs (by tag) and the last error text. */
export interface ActionSnapshot<T extends string> { pending: T | null; error: string | null }

/** The idle snapshot. */
export const IDLE: ActionSnapshot<never> = Object.freeze({ pending: null, error: null });

/** The text of a thrown value: an Error's message, else the value as a string. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Run `fn` as action `tag`: `set` sees `{pending: tag, error: null}`, then `{pending: null, error}`
 * with `error` = `message(thrown)` or null. Never rejects.
 * @returns true when `fn` succeeded.
 */
export async function runAction<T extends string>(
  fn: () => Promise<unknown>,
  tag: T,
  set: (s: ActionSnapshot<T>) => void,
  message: (err: unknown) => string = errorText,
): Promise<boolean> {
  set({ pending: tag, error: null });
  try {
    await fn();
    set({ pending: null, error: null });
    return true;
  } catch (err) {
    set({ pending: null, error: message(err) });
    return false;
  }
}
