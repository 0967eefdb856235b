/**
 * Open a third party's authorization page (issue 18 item 1 integrations, issue 17 item 3 MCP
 * authorization): the system browser in the desktop shell (RFC 8252: native apps use the user's own
 * browser), else the window the click opened (so no popup blocker stops it), else a new tab.
 */
import { systemBrowserShell } from './oidc';

/** Open `url`; `win`: a blank window opened in the click itself, or null. */
export async function openAuthorization(url: string, win: Window | null): Promise<void> {
  const shell = systemBrowserShell();
  if (shell) { win?.close(); await shell.openExternal(url); return; }
  if (win) win.location.href = url;
  else window.open(url, '_blank');
}
