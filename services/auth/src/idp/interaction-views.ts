/**
 * The embedded IdP's sign-in pages (issue 14 items 3-4 and 15 item 1), server-rendered HTML styled as
 * the app (the renderer's colours, fonts and card from renderer/src/styles.css): the password form
 * with the same labels, button and alerts as the renderer's old sign-in, the upstream IdPs as
 * buttons, the second-factor step (number to pick on the phone, "Use a code instead", the pairing QR
 * code when enforced) and its final state. No inline script or style: the stylesheet and the one
 * script are served by the interaction plugin from `INTERACTION_ASSETS` under the strict
 * `INTERACTION_CSP`. Every interpolated value is HTML-escaped.
 */
import { IDP_PREFIX, type PublicUpstreamIdp } from '../contracts/upstream-sso.js';
import type { LoginChallengeCreated } from '../contracts/login-challenge.js';
import { clock, fingerprintOfEnrollmentUrl } from '../contracts/sign-in-words.js';

/** Where the interaction pages' stylesheet and script are served (GET, public, immutable per build). */
export const INTERACTION_ASSETS = `${IDP_PREFIX}/interaction-assets`;

/**
 * CSP of the interaction pages: nothing but this origin's stylesheet, script and images (`data:` for
 * the QR code); forms post only here, and the redirects they lead to stay on this origin or go to a
 * loopback redirect of a native client (RFC 8252 §7.3, Chrome checks `form-action` on redirects;
 * CSP has no IPv6-literal sources, so the desktop shell listens on 127.0.0.1).
 */
export const INTERACTION_CSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; "
  + "form-action 'self' http://127.0.0.1:*; base-uri 'none'; frame-ancestors 'none'";

/** HTML-escape text for element content and double-quoted attributes. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    + '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">'
    + `<title>${esc(title)}</title><link rel="stylesheet" href="${INTERACTION_ASSETS}/idp.css"></head>`
    + `<body><main class="signin">${body}</main></body></html>`;
}

/** What the password form shows. */
export interface LoginView {
  uid: string;
  csrf: string;
  username?: string;
  error?: string;
  /** A notice above the fields (e.g. "Password sign-in is switched off on this server."). */
  notice?: string;
  upstream: PublicUpstreamIdp[];
}

/** The password form (`POST {IDP_PREFIX}/interaction/{uid}/login`). */
export function loginPage(v: LoginView): string {
  const invalid = v.error ? ' aria-invalid="true"' : '';
  const sso = v.upstream.length === 0 ? '' : '<div class="sso"><p class="muted small">Or use your organisation\'s sign-in:</p>'
    + v.upstream.map((idp) => `<form method="get" action="${esc(idp.login_path)}"><input type="hidden" name="interaction" value="${esc(v.uid)}">`
      + `<button type="submit" class="wide">Continue with ${esc(idp.display_name)}</button></form>`).join('') + '</div>';
  return page('Sign in to svc', '<div class="card signin-card">'
    + `<form method="post" action="${IDP_PREFIX}/interaction/${esc(v.uid)}/login" novalidate aria-labelledby="signin-title" class="signin-form">`
    + '<h1 id="signin-title">Sign in to svc</h1><p class="muted">Every answer comes with a receipt you can verify.</p>'
    + (v.notice ? `<p class="notice warn" role="status">${esc(v.notice)}</p>` : '')
    + `<input type="hidden" name="csrf" value="${esc(v.csrf)}">`
    + '<label for="username">Username</label>'
    + `<input id="username" name="username" autocomplete="username" autofocus value="${esc(v.username ?? '')}"${invalid}>`
    + '<label for="password">Password</label>'
    + `<input id="password" name="password" type="password" autocomplete="current-password"${invalid}>`
    + (v.error ? `<p class="error" role="alert">${esc(v.error)}</p>` : '')
    + '<button type="submit" class="primary">Sign in</button></form>'
    + sso + '</div>');
}

/** What the second-factor step shows. */
export interface SecondFactorView {
  uid: string;
  csrf: string;
  challenge: LoginChallengeCreated;
  /** The pairing QR code of `challenge.enrollment_url` as a data: URL (enforced accounts without a phone). */
  qrDataUrl?: string;
  /** Open the code form (after a refused code, or when only codes are offered). */
  codeMode?: boolean;
  codeError?: string;
}


/**
 * The phone step: the number (large), a live wait (the script polls
 * `POST {IDP_PREFIX}/interaction/{uid}/second-factor/poll` every second and follows the approval),
 * "Use a code instead" (`POST .../second-factor` with `code`), "Cancel" (`POST .../abort`).
 */
export function secondFactorPage(v: SecondFactorView, now: number): string {
  const c = v.challenge;
  const push = c.methods.includes('push');
  const enroll = c.methods.includes('enroll') && !!c.enrollment_url;
  const codes = c.methods.includes('totp') || c.methods.includes('recovery_code');
  const codeMode = v.codeMode || (!push && !enroll && codes);
  const left = Math.max(0, Math.ceil((Date.parse(c.expires_at) - now) / 1000));
  const base = `${IDP_PREFIX}/interaction/${esc(v.uid)}`;
  let body = `<div class="second-factor" data-testid="second-factor" data-state="waiting" data-uid="${esc(v.uid)}" data-csrf="${esc(v.csrf)}" data-expires-at="${esc(c.expires_at)}">`
    + '<h1 id="signin-title">Confirm on your phone</h1>';
  if (enroll) {
    const fp = fingerprintOfEnrollmentUrl(c.enrollment_url!);
    body += '<div class="sf-enroll"><p>Your administrator requires a phone as a second factor. Scan this code with your phone\'s camera to pair it; then the phone asks you to confirm this sign-in.</p>'
      + `<div class="qr" data-testid="pairing-qr" data-enrollment-url="${esc(c.enrollment_url!)}">`
      + (v.qrDataUrl ? `<img src="${esc(v.qrDataUrl)}" width="240" height="240" alt="QR code to pair your phone">` : '<p class="error">The QR code could not be drawn.</p>')
      + '</div>'
      + (fp ? `<p class="muted small">The phone's browser first warns about the workstation's own certificate; it is the right one if its fingerprint is <code class="fp">${esc(fp)}</code>.</p>` : '')
      + '</div>';
  }
  if (push || enroll) {
    body += '<p>Open the svc authenticator on your phone and tap this number:</p>'
      + `<p class="sf-number" data-testid="number-match" aria-label="Number ${c.number_match}">${c.number_match}</p>`
      + `<p class="sf-wait" role="status" aria-live="polite"><span class="spinner" aria-hidden="true"></span> Waiting for your phone… (<span data-countdown>${clock(left)}</span> left)</p>`;
  }
  body += '<p class="notice warn small" role="status" data-notice hidden></p>';
  if (codes) {
    body += `<button type="button" class="link" data-show-code${codeMode ? ' hidden' : ''}>Use a code instead</button>`
      + `<form class="sf-code" method="post" action="${base}/second-factor" novalidate data-code-form${codeMode ? '' : ' hidden'}>`
      + `<input type="hidden" name="csrf" value="${esc(v.csrf)}">`
      + '<label for="sf-code">Code</label>'
      + '<p class="muted small" id="sf-code-help">The 6-digit offline code your phone shows, or one of your recovery codes.</p>'
      + `<input id="sf-code" name="code" autocomplete="one-time-code" inputmode="text" aria-describedby="sf-code-help"${v.codeError ? ' aria-invalid="true" autofocus' : ''}>`
      + (v.codeError ? `<p class="error" role="alert">${esc(v.codeError)}</p>` : '')
      + '<button type="submit" class="primary">Verify code</button></form>';
  }
  body += `<form method="post" action="${base}/abort"><input type="hidden" name="csrf" value="${esc(v.csrf)}"><button type="submit" class="link">Cancel</button></form></div>`;
  return page('Confirm on your phone', `<section class="card signin-card" aria-labelledby="signin-title">${body}</section>`
    + `<script src="${INTERACTION_ASSETS}/second-factor.js"></script>`);
}

/**
 * The end of a sign-in that cannot go on (denied, expired, used): the reason and "Sign in again",
 * which restarts the same authorization request (`restartUrl`) in a new interaction.
 */
export function finalPage(message: string, restartUrl: string): string {
  const u = new URL(restartUrl, 'http://x');
  const fields = [...u.searchParams].map(([k, val]) => `<input type="hidden" name="${esc(k)}" value="${esc(val)}">`).join('');
  return page('Sign-in stopped', '<section class="card signin-card" aria-labelledby="signin-title">'
    + '<div class="second-factor" data-testid="second-factor" data-state="final"><h1 id="signin-title">Sign-in stopped</h1>'
    + `<p class="error" role="alert">${esc(message)}</p>`
    + `<form method="get" action="${esc(u.pathname)}">${fields}<button type="submit" class="primary">Sign in again</button></form></div></section>`);
}

/** A page for an interaction that is gone or broken (expired, other browser, forged post). */
export function problemPage(message: string): string {
  return page('Sign-in', '<section class="card signin-card" aria-labelledby="signin-title"><h1 id="signin-title">Sign-in</h1>'
    + `<p class="error" role="alert">${esc(message)}</p><p class="muted">Go back to the app and sign in again.</p>`
    + '<form method="get" action="/"><button type="submit" class="primary">Back to the app</button></form></section>');
}

/**
 * oidc-provider's end-session confirmation (`features.rpInitiatedLogout.logoutSource`): `form` is the
 * provider's `<form id="op.logoutForm" ...>` with its xsrf field; the page adds `logout=yes` (end the
 * IdP session too) and submits it at once with the same-origin `logout.js` (a button when scripts
 * are off).
 */
export function logoutPage(form: string): string {
  return page('Signing out', '<section class="card signin-card" aria-labelledby="signin-title"><h1 id="signin-title">Signing out…</h1>'
    + form.replace('</form>', '<input type="hidden" name="logout" value="yes"></form>')
    + '<button type="submit" class="primary" form="op.logoutForm" data-logout>Sign out</button></section>'
    + `<script src="${INTERACTION_ASSETS}/logout.js"></script>`);
}

/** After an end-session without a post-logout redirect (`postLogoutSuccessSource`). */
export function loggedOutPage(): string {
  return page('Signed out', '<section class="card signin-card" aria-labelledby="signin-title"><h1 id="signin-title">Signed out</h1>'
    + '<p class="muted">You are signed out. You can close this window.</p>'
    + '<form method="get" action="/"><button type="submit" class="primary">Back to the app</button></form></section>');
}
