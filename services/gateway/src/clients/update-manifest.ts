/**
 * The connected update check (issue 19 item 4): fetch `SVC_UPDATE_MANIFEST_URL` (JSON with at least
 * `{version}`) with a 5 s timeout. Offline, refused or malformed answers say so instead of failing.
 */

/** What `GET /v1/admin/update` says about the manifest. */
export interface ManifestCheck {
  url: string | null;
  status: 'not_configured' | 'offline' | 'checked' | 'error';
  latest_version: string | null;
  update_available: boolean;
  message: string | null;
}

function newer(a: string, b: string): boolean {
  const pa = a.split(/[.+-]/).map((x) => Number(x) || 0); const pb = b.split(/[.+-]/).map((x) => Number(x) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) { if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0); }
  return false;
}

/** Check `url` for a version newer than `current`; never throws. */
export async function checkManifestUrl(url: string | null, current: string): Promise<ManifestCheck> {
  if (!url) return { url: null, status: 'not_configured', latest_version: null, update_available: false, message: 'SVC_UPDATE_MANIFEST_URL is not set: apply signed bundles offline' };
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (!r.ok) return { url, status: 'error', latest_version: null, update_available: false, message: `manifest answered ${r.status}` };
    const body = await r.json() as { version?: unknown };
    if (typeof body.version !== 'string') return { url, status: 'error', latest_version: null, update_available: false, message: 'manifest has no version' };
    return { url, status: 'checked', latest_version: body.version, update_available: newer(body.version, current), message: null };
  } catch (err) {
    return { url, status: 'offline', latest_version: null, update_available: false, message: `offline: ${(err as Error).message.slice(0, 160)}` };
  }
}
