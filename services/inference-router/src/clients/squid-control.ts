/**
 * Control of the workstation's Squid (issue 19 item 6): write the allowlist include and run
 * `squid -k reconfigure -f <squid.conf>` (Squid signals the running instance through its pid file).
 */
import { execFile } from 'node:child_process';
import { writeFile, rename } from 'node:fs/promises';
import type { EgressSlice } from '../../../shared/config.js';
import type { EgressProxyControl } from '../domain/egress.js';

/** `EgressProxyControl` over the egress slice; a no-op writer when egress is off. */
export function squidControl(eg: EgressSlice | undefined, log: { warn(o: object, m: string): void }): EgressProxyControl {
  return {
    status: () => ({ policy: eg?.policy ?? 'off', state: eg?.state ?? 'off', reason: eg?.reason ?? null }),
    apply: async (conf) => {
      if (!eg || eg.policy === 'off') return;
      const tmp = `${eg.allowlistPath}.tmp`;
      await writeFile(tmp, conf, { mode: 0o644 });
      await rename(tmp, eg.allowlistPath);
      if (eg.state !== 'running') return;
      await new Promise<void>((resolve) => {
        execFile(eg.squidBin, ['-k', 'reconfigure', '-f', eg.confPath], { timeout: 10_000 }, (err, _out, stderr) => {
          if (err) log.warn({ err: err.message, stderr: String(stderr).slice(0, 300) }, 'squid reconfigure failed');
          resolve();
        });
      });
    },
  };
}
