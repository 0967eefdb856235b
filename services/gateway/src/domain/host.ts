/**
 * Which `Host` the gateway answers (issue 11 item 9; the DNS-rebinding defence of loopback apps).
 *
 * A page on an attacker's domain can make a browser resolve that domain to 127.0.0.1 and talk to
 * the workstation; the browser then sends the attacker's name as `Host`. The gateway answers only
 * loopback names (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`), the host of `SVC_PUBLIC_URL`,
 * the bind address, and the names of `SVC_ALLOWED_HOSTS`. A request without `Host` (not a browser)
 * passes.
 */

/** The host name of a `Host` header value, lower-cased, without port, brackets or a trailing dot. */
export function hostName(header: string): string {
  let h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    h = end > 0 ? h.slice(1, end) : h.slice(1);
  } else {
    const colon = h.indexOf(':');
    if (colon >= 0) h = h.slice(0, colon);
  }
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** True for loopback names: `localhost`, `*.localhost`, `127.x.y.z`, `::1`. */
export function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127(?:\.\d{1,3}){3}$/.test(name);
}

/**
 * The set of extra names the gateway answers: the public URL's host, the bind address (unless it is
 * a wildcard) and the configured names.
 */
export function allowedHostSet(publicUrl: string, bindHost: string, configured: readonly string[]): ReadonlySet<string> {
  const names = new Set(configured.map((h) => hostName(h)));
  try { names.add(hostName(new URL(publicUrl).host)); } catch { /* a malformed public URL adds nothing */ }
  if (bindHost !== '0.0.0.0' && bindHost !== '::') names.add(hostName(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost));
  return names;
}

/** True when a request with this `Host` header value may be answered. */
export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (header === undefined || header === '') return true;
  const name = hostName(header);
  return isLoopbackName(name) || allowed.has(name);
}
