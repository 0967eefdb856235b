/**
 * Which sandbox instance owns a session (issue 21 item 3: "REDIS_URL carries ... the sandbox session
 * registry"). A session's container and its Python state live in ONE instance's Docker engine, so
 * sharing the registry means routing: every instance records the sessions it holds, and a call for a
 * session another live instance holds is forwarded there (routes/owner-routing.ts). An instance that
 * stopped (no heartbeat) loses its sessions' state; the next call claims the session afresh.
 *
 * `LocalOwners` (one instance, the desktop default) always answers "here". The Redis registry is
 * `clients/redis-owners.ts`.
 */
import type { SessionKey } from './sessions.js';

/** Where a session's calls run. */
export type Owner = { here: true } | { here: false; instance: string; url: string };

/** Another live instance of the deployment. */
export interface PeerInstance { instance: string; url: string }

/** The session registry port. */
export interface SessionOwners {
  /** Claim `key` for this instance unless another live instance holds it. */
  resolve(key: SessionKey): Promise<Owner>;
  /** This instance no longer holds `key` (session removed). Never throws. */
  release(key: SessionKey): Promise<void>;
  /** Whether `instance` is alive (crash cleanup keeps live instances' containers). */
  isLive(instance: string): Promise<boolean>;
  /** The other live instances (the admin list asks each). */
  peers(): Promise<PeerInstance[]>;
  /** Stop heartbeats, release what this instance holds. */
  close(): Promise<void>;
}

/** One instance: every session is here. */
export class LocalOwners implements SessionOwners {
  /** @param instance this instance's id. */
  constructor(private readonly instance: string) {}
  resolve(): Promise<Owner> { return Promise.resolve({ here: true }); }
  release(): Promise<void> { return Promise.resolve(); }
  isLive(instance: string): Promise<boolean> { return Promise.resolve(instance === this.instance); }
  peers(): Promise<PeerInstance[]> { return Promise.resolve([]); }
  close(): Promise<void> { return Promise.resolve(); }
}
