/** auth service entry (placeholder until the local-accounts work lands). */
import type { AuthConfig } from '../../shared/config.js';
import { startBasicService } from '../../shared/http/basic-service.js';
import type { RunningService } from '../../shared/runtime.js';

/** Start the auth service. */
export async function start(cfg: AuthConfig): Promise<RunningService> {
  return startBasicService(cfg);
}
