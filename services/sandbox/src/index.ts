/**
 * sandbox service entry (spec: "Services" table). Its routes land with the issue that owns them;
 * until then it answers /healthz, /readyz, /metrics and a clear 404 for everything else.
 */
import { basicService } from '../../shared/kit/basic-service.js';
import { serviceStart } from '../../shared/kit/service.js';

/** Start the sandbox service on `cfg.host:cfg.port` (health, readiness and metrics only). */
export const start = serviceStart(basicService('sandbox'));
