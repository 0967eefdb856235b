/**
 * A `ToolContext` (agent-runtime contracts) for calling tool plug-ins directly in tests, as the
 * runtime would call them for a user: the given stamped headers, service URLs and agent, with the
 * runtime's own `callService`.
 */
import { serviceCaller } from '../../services/agent-runtime/src/clients/service-call.js';
import type { ToolContext } from '../../services/agent-runtime/src/contracts.js';

/** A tool context for `headers` over `serviceUrls` (agent '' = none). */
export function toolContext(serviceUrls: Record<string, string>, headers: Record<string, string>, agentId = ''): ToolContext {
  const signal = new AbortController().signal;
  return {
    tenantId: 'acme', userId: 'test-user', agentId, sessionId: 'test-session', turnId: headers['x-svc-turn-id'] ?? null, callId: 'call_test',
    headers, serviceUrls, signal, callService: serviceCaller(serviceUrls, headers, signal),
  };
}
