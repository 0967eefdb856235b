/**
 * Fetching what a sandbox run left in audit (issue 12 item 9): artifact bodies through the audit
 * artifact route (`/v1/audit/turns/{turn_id}/artifacts/{event_id}/{kind}`, which needs the user's
 * bearer, so never a plain `<img src>`), turned into blob URLs for inline images or saved as
 * downloads; the turn's replay (`GET /v1/audit/turns/{turn_id}/replay`) for a stored call's URLs and
 * whole output. Rows of the virtual chat list unmount and remount as they scroll, so answers are kept
 * here (a small LRU of blob URLs, one replay per turn) instead of in the components.
 */
import { api, apiFetch } from '../api/http';
import { baseName, safeArtifactUrl, type ReplayLike } from './sandbox-result';

/** Blob URLs kept for inline images (older ones are revoked). */
const BLOB_CACHE_MAX = 48;
const blobs = new Map<string, Promise<string>>();

/**
 * A blob URL of the artifact at `url` (fetched once, with the bearer). Rejects with ApiError when the
 * route refuses, Error when `url` is not an audit artifact route.
 */
export function artifactBlobUrl(url: string): Promise<string> {
  const hit = blobs.get(url);
  if (hit) {
    blobs.delete(url);
    blobs.set(url, hit);
    return hit;
  }
  if (!safeArtifactUrl(url)) return Promise.reject(new Error('not an artifact route'));
  const p = apiFetch(url).then(async (res) => URL.createObjectURL(await res.blob()));
  p.catch(() => { blobs.delete(url); });
  blobs.set(url, p);
  while (blobs.size > BLOB_CACHE_MAX) {
    const [oldest, old] = blobs.entries().next().value!;
    blobs.delete(oldest);
    void old.then((u) => URL.revokeObjectURL(u), () => undefined);
  }
  return p;
}

/** Save the artifact at `url` as a download named after the file. @throws ApiError */
export async function downloadArtifact(url: string, name: string): Promise<void> {
  if (!safeArtifactUrl(url)) throw new Error('not an artifact route');
  const res = await apiFetch(url);
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = baseName(name);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** The text body of the artifact at `url` (a call's whole `tool_output`). @throws ApiError */
export async function artifactText(url: string): Promise<string> {
  if (!safeArtifactUrl(url)) throw new Error('not an artifact route');
  return (await apiFetch(url)).text();
}

const replays = new Map<string, Promise<ReplayLike>>();

/**
 * The replay of turn `turnId` (events with their artifact metadata), fetched once per turn; a failed
 * fetch (e.g. the turn is not sealed yet) is forgotten so a later call tries again. @throws ApiError
 */
export function loadReplay(turnId: string): Promise<ReplayLike> {
  const hit = replays.get(turnId);
  if (hit) return hit;
  const p = api<ReplayLike>(`/v1/audit/turns/${encodeURIComponent(turnId)}/replay`);
  p.catch(() => { replays.delete(turnId); });
  replays.set(turnId, p);
  if (replays.size > 64) replays.delete(replays.keys().next().value!);
  return p;
}
