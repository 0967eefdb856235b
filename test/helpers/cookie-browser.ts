/**
 * A minimal scripted user agent for redirect-driven sign-in tests (issue 15 item 2): follows 30x by
 * hand and keeps cookies per origin with their `Path` (what a browser would send), so flows that
 * hop between the workstation and a company IdP can be walked without a real browser.
 */

interface Cookie { origin: string; name: string; value: string; path: string }

/** One answer of `CookieBrowser.go`. */
export interface Hop { url: string; status: number; location: string | null; body: string; headers: Headers }

/** The scripted agent. */
export class CookieBrowser {
  private cookies: Cookie[] = [];
  /** Every URL visited, in order. */
  readonly visited: string[] = [];

  private header(u: URL): string {
    return this.cookies.filter((c) => c.origin === u.origin && (u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`).join('; ');
  }

  private store(u: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim(); const value = pair!.slice(eq + 1).trim();
      const pathAttr = attrs.map((a) => a.trim()).find((a) => /^path=/i.test(a));
      const path = pathAttr ? pathAttr.slice(5) : '/';
      const expired = attrs.some((a) => /^max-age=0$/i.test(a.trim()) || /^expires=thu, 01 jan 1970/i.test(a.trim()));
      this.cookies = this.cookies.filter((c) => !(c.origin === u.origin && c.name === name && c.path === path));
      if (!expired && value !== '') this.cookies.push({ origin: u.origin, name, value, path });
    }
  }

  /** One request (no redirect following). */
  async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Hop> {
    const u = new URL(url);
    this.visited.push(u.href);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.header(u);
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(u, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, redirect: 'manual', ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}) });
    this.store(u, res);
    const location = res.headers.get('location');
    return { url: u.href, status: res.status, location: location ? new URL(location, u).href : null, body: await res.text(), headers: res.headers };
  }

  /**
   * Request `url`, then follow redirects until an answer is not a redirect or `stop(url)` says so.
   * @returns the last answer (a redirect when `stop` matched its location).
   */
  async go(url: string, stop: (next: string) => boolean = () => false, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop> {
    let hop = await this.request(url, init);
    for (let i = 0; i < 20 && hop.status >= 300 && hop.status < 400 && hop.location && !stop(hop.location); i++) hop = await this.request(hop.location);
    return hop;
  }
}
