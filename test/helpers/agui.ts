/**
 * Checks shared by the AG-UI tests (unit and integration): every event validates against
 * `@ag-ui/core`'s schemas and the sequence passes `@ag-ui/client`'s `verifyEvents`.
 */
import assert from 'node:assert/strict';
import { from, lastValueFrom, toArray } from 'rxjs';
import { verifyEvents } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';

/** Assert schema validity and verifyEvents ordering; returns the events verifyEvents let through. */
export async function assertValidRun(events: Array<Record<string, unknown>>): Promise<BaseEvent[]> {
  for (const e of events) {
    const r = EventSchemas.safeParse(e);
    assert.ok(r.success, `${String(e.type)} does not validate: ${r.success ? '' : r.error.message}`);
  }
  return lastValueFrom(from(events as unknown as BaseEvent[]).pipe(verifyEvents(false), toArray()));
}
