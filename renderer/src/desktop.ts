/** The Electron preload bridge when the renderer runs in the desktop shell, else null (a browser). */
import type { DesktopBridge } from '../../main/ipc/common/channels.js';

declare global {
  interface Window { desktop?: DesktopBridge }
}

/** `window.desktop`, or null in a plain browser. */
export function desktop(): DesktopBridge | null {
  return typeof window !== 'undefined' && window.desktop?.isDesktop === true ? window.desktop : null;
}
