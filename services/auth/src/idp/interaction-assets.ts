/**
 * The stylesheet and script of the IdP's sign-in pages (issue 15 item 1), served by the interaction
 * plugin under `INTERACTION_ASSETS` (same origin, so the pages' CSP needs no inline code). The
 * stylesheet is the renderer's look (renderer/src/styles.css base and sign-in rules,
 * renderer/src/account/two-factor.css phone step), copied here because the auth service does not
 * serve the renderer's build; keep the two in step when the app's look changes. The script polls the
 * second factor once a second, counts down, and opens the code form.
 */

/** `idp.css`: the app's colours, fonts, card, sign-in and second-factor rules. */
export const IDP_CSS = `:root {
  --bg: #f7f7f8; --panel: #ffffff; --ink: #1d1f23; --muted: #6b7180; --line: #e3e5ea; --accent: #3a5bd9; --accent-ink: #fff;
  --ok: #1f8a4c; --bad: #c0362c; --warn: #a76a00; --code-bg: #f2f3f6; --user: #eef2ff; --shadow: 0 1px 2px rgba(0,0,0,.06), 0 4px 16px rgba(0,0,0,.05);
  --radius: 10px; --font: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; --mono: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171b; --panel: #1d2026; --ink: #e7e9ee; --muted: #9aa0ad; --line: #2d313a; --accent: #7b96ff; --accent-ink: #0d1020;
    --code-bg: #23262d; --user: #232a3d; --ok: #4cc47f; --bad: #ff7a70; --warn: #e3a73b; --shadow: none; }
}
* { box-sizing: border-box; }
html, body, #root { height: 100%; margin: 0; }
body { font: 15px/1.5 var(--font); color: var(--ink); background: var(--bg); }
button, input, select, textarea { font: inherit; color: inherit; }
button { cursor: pointer; border: 1px solid var(--line); background: var(--panel); border-radius: 8px; padding: .4rem .9rem; }
button:disabled { opacity: .55; cursor: default; }
button.primary { background: var(--accent); color: var(--accent-ink); border-color: var(--accent); font-weight: 600; }
button.link { border: 0; background: none; padding: .1rem .3rem; color: var(--accent); }
button.wide { width: 100%; }
input, select, textarea { border: 1px solid var(--line); background: var(--panel); border-radius: 8px; padding: .45rem .6rem; }
input:focus-visible, select:focus-visible, textarea:focus-visible, button:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
a { color: var(--accent); }
code, pre { font-family: var(--mono); font-size: .88em; }
pre { background: var(--code-bg); border-radius: 8px; padding: .6rem .75rem; overflow: auto; white-space: pre-wrap; word-break: break-word; margin: .4rem 0; }
h1 { font-size: 1.35rem; margin: 0 0 .8rem; } h2 { font-size: 1.1rem; margin: 1.4rem 0 .6rem; } h3 { font-size: 1rem; margin: 0 0 .6rem; }
.muted { color: var(--muted); } .small { font-size: .85em; } .ok { color: var(--ok); } .error { color: var(--bad); }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 1rem; box-shadow: var(--shadow); }
.notice { border-radius: 8px; padding: .45rem .7rem; margin: .4rem 0; font-size: .9em; border: 1px solid var(--line); background: var(--code-bg); }
.notice.warn, .notice.retract, .notice.blocked { border-color: color-mix(in srgb, var(--warn) 45%, transparent); background: color-mix(in srgb, var(--warn) 10%, var(--panel)); }
.notice.error { border-color: color-mix(in srgb, var(--bad) 45%, transparent); background: color-mix(in srgb, var(--bad) 8%, var(--panel)); color: var(--bad); }
.notice.user_redaction, .notice.info { border-color: color-mix(in srgb, var(--accent) 35%, transparent); background: color-mix(in srgb, var(--accent) 8%, var(--panel)); }
.boot, .page-loading { display: grid; place-items: center; height: 100%; color: var(--muted); }
.signin { min-height: 100%; display: grid; place-items: center; padding: 2rem; background: radial-gradient(ellipse at top, color-mix(in srgb, var(--accent) 12%, var(--bg)), var(--bg) 60%); }
.signin-card { width: min(380px, 100%); display: flex; flex-direction: column; gap: .35rem; padding: 1.8rem; }
.signin-card h1 { margin-bottom: 0; }
.signin-card label { font-weight: 600; margin-top: .6rem; font-size: .92em; }
.signin-card button { margin-top: 1rem; padding: .6rem; }
.signin-card .error { margin: .5rem 0 0; }
.second-factor { display: flex; flex-direction: column; gap: .35rem; }
.second-factor h1 { margin-bottom: .2rem; }
.sf-number { font-size: 4.2rem; font-weight: 800; letter-spacing: .04em; text-align: center; margin: .2rem 0; line-height: 1.1; color: var(--accent); font-variant-numeric: tabular-nums; }
.sf-wait { display: flex; align-items: center; justify-content: center; gap: .5rem; color: var(--muted); margin: 0 0 .4rem; }
.spinner { width: 1em; height: 1em; border-radius: 50%; border: 2px solid var(--line); border-top-color: var(--accent); animation: sf-spin 0.9s linear infinite; display: inline-block; }
@keyframes sf-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.sf-code { display: flex; flex-direction: column; gap: .3rem; margin-top: .4rem; }
.sf-code label { font-weight: 600; }
.sf-code p { margin: 0; }
.sf-code input { font-family: var(--mono); font-size: 1.2rem; letter-spacing: .08em; }
.sf-enroll { display: flex; flex-direction: column; align-items: center; gap: .4rem; text-align: left; }
.second-factor button.link { align-self: center; margin-top: .4rem; padding: .2rem; }
.qr img, .qr-blank { display: block; border-radius: 8px; background: #fff; }
.qr-blank { display: grid; place-items: center; color: var(--muted); font-size: .85em; }
code.fp { word-break: break-all; font-size: .78em; }
.signin-form { display: flex; flex-direction: column; gap: .35rem; }
.sso { display: flex; flex-direction: column; gap: .4rem; margin-top: 1.2rem; border-top: 1px solid var(--line); padding-top: .8rem; }
.sso form { display: contents; }
.sso button { margin-top: 0; }
[hidden] { display: none !important; }
`;

/** `second-factor.js`: the live wait of the phone step (no inline script: CSP `script-src 'self'`). */
export const SECOND_FACTOR_JS = `(function () {
  'use strict';
  var root = document.querySelector('[data-testid="second-factor"][data-state="waiting"]');
  if (!root) return;
  var uid = root.getAttribute('data-uid') || '';
  var csrf = root.getAttribute('data-csrf') || '';
  var expires = Date.parse(root.getAttribute('data-expires-at') || '');
  var base = location.pathname.replace(/\\/(second-factor|login|abort)$/, '');
  if (base.indexOf('/interaction/') < 0) base = '/idp/realms/svc/interaction/' + encodeURIComponent(uid);
  var show = root.querySelector('[data-show-code]');
  var form = root.querySelector('[data-code-form]');
  var notice = root.querySelector('[data-notice]');
  var countdown = root.querySelector('[data-countdown]');
  var stopped = false;
  if (show && form) {
    show.addEventListener('click', function () {
      form.hidden = false; show.hidden = true;
      var input = form.querySelector('input[name="code"]'); if (input) input.focus();
    });
  }
  if (form) form.addEventListener('submit', function () { stopped = true; });
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function tick() {
    if (!countdown || !isFinite(expires)) return;
    var left = Math.max(0, Math.ceil((expires - Date.now()) / 1000));
    countdown.textContent = Math.floor(left / 60) + ':' + pad(left % 60);
  }
  setInterval(tick, 1000);
  function say(text) {
    if (!notice) return;
    if (text) { notice.textContent = text; notice.hidden = false; } else { notice.hidden = true; }
  }
  function poll() {
    if (stopped) return;
    fetch(base + '/second-factor/poll', { method: 'POST', headers: { 'x-csrf-token': csrf }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(function (a) {
        if (stopped) return;
        if (a && a.state === 'approved' && typeof a.location === 'string') { stopped = true; location.assign(a.location); return; }
        if (a && a.state === 'final') { stopped = true; location.reload(); return; }
        say(a && a.state === 'retry' ? a.message : '');
        setTimeout(poll, 1000);
      }, function () {
        say('The server cannot be reached. Check that the stack is running.');
        setTimeout(poll, 1000);
      });
  }
  setTimeout(poll, 1000);
})();
`;

/** `logout.js`: submits the end-session confirmation form at once (`logoutPage`). */
export const LOGOUT_JS = "(function () { var f = document.getElementById('op.logoutForm'); if (f && typeof f.submit === 'function') f.submit(); })();\n";
