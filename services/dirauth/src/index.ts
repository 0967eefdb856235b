/**
 * dirauth service entry (spec "Services": dirauth, port 8010; issue 15 item 3): verifies corporate
 * directory credentials by LDAP bind for the auth service (see contracts.ts for the routes).
 * `start(cfg, runtime?)` listens on `cfg.host:cfg.port` and returns the bound port with `close()`.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { dirauthService } from './app.js';

/** Start the dirauth service. */
export const start = serviceStart(dirauthService);
