/**
 * The small HTML page a browser sees at the end of an OAuth redirect (issue 18 item 1 integrations,
 * issue 17 item 3 MCP authorization): a heading whose `data-status` says `connected` or `failed`, a
 * sentence, the stable error code when it failed, and a `postMessage({type: 'oauth-done'})` to the
 * window that opened it so the app refreshes at once.
 */

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page. `code`: the error code of a failure (shown and in `data-code`), null when it worked. */
export function callbackPage(ok: boolean, title: string, text: string, code: string | null): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.3rem}</style></head>
<body><h1 id="oauth-result" data-status="${ok ? 'connected' : 'failed'}"${code ? ` data-code="${esc(code)}"` : ''}>${esc(title)}</h1><p>${esc(text)}</p>
${code ? `<p><code id="oauth-code">${esc(code)}</code></p>` : ''}<script>try{window.opener&&window.opener.postMessage({type:'oauth-done'},'*')}catch(e){}</script></body></html>`;
}
