/**
 * guardrail service entry (spec: "Services" table). Its routes land with the issue that owns them;
 * until then it answers /healthz, /readyz, /metrics and a clear 404 for everything else.
 */
import type { CommonServiceConfig } from '../../shared/config.js';
import { startBasicService } from '../../shared/http/basic-service.js';
import type { RunningService } from '../../shared/runtime.js';

/** Start the guardrail service on `cfg.host:cfg.port`. */
export async function start(cfg: CommonServiceConfig): Promise<RunningService> {
  return startBasicService(cfg);
}
