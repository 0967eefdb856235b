/**
 * A service whose routes are not built yet, as the kit defines it: `/healthz`, `/readyz`,
 * `/metrics` and a 404 `{error, code: "not_found"}` for everything else. It pretends nothing:
 * every other route answers 404 until the issue that owns it lands.
 */
import type { CommonServiceConfig } from '../config.js';
import type { ServiceName } from '../services.js';
import { defineService, type ServiceDefinition } from './service.js';

/** The definition of a service that only answers its health, readiness and metrics routes. */
export function basicService(name: ServiceName): ServiceDefinition<CommonServiceConfig> {
  return defineService<CommonServiceConfig>({ name, errors: {}, setup: () => {} });
}
