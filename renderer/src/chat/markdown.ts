/**
 * Markdown to HTML for answers: marked (GFM) with highlight.js on fenced code. Model output is
 * untrusted, so raw HTML in the Markdown is shown as text, links keep only http(s)/mailto targets
 * (and open outside the app), and images are rendered as links (no remote fetches; the CSP would
 * refuse them anyway).
 */
import { Marked, type Tokens } from 'marked';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import javascript from 'highlight.js/lib/languages/javascript';
import typescript from 'highlight.js/lib/languages/typescript';
import python from 'highlight.js/lib/languages/python';
import json from 'highlight.js/lib/languages/json';
import sql from 'highlight.js/lib/languages/sql';
import yaml from 'highlight.js/lib/languages/yaml';
import xml from 'highlight.js/lib/languages/xml';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import rust from 'highlight.js/lib/languages/rust';
import java from 'highlight.js/lib/languages/java';
import diff from 'highlight.js/lib/languages/diff';
import markdown from 'highlight.js/lib/languages/markdown';

for (const [name, lang] of Object.entries({ bash, javascript, typescript, python, json, sql, yaml, xml, css, go, rust, java, diff, markdown })) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

/** Escape text for HTML. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** True for link targets an answer may carry. */
export function safeHref(href: string): boolean {
  try {
    const u = new URL(href, 'https://invalid.example/');
    return (u.protocol === 'https:' || u.protocol === 'http:' || u.protocol === 'mailto:') && !href.startsWith('/') && !href.startsWith('.');
  } catch { return false; }
}

const md = new Marked({ gfm: true, breaks: false, async: false });
md.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string { return escapeHtml(token.text); },
    code(token: Tokens.Code): string {
      const lang = (token.lang ?? '').split(/\s/)[0]!.toLowerCase();
      const known = lang && hljs.getLanguage(lang);
      const body = known ? hljs.highlight(token.text, { language: lang, ignoreIllegals: true }).value : escapeHtml(token.text);
      return `<pre class="code"><div class="code-lang">${escapeHtml(lang || 'text')}</div><code class="hljs${known ? ` language-${escapeHtml(lang)}` : ''}">${body}</code></pre>`;
    },
    link(this: { parser: { parseInline(t: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!safeHref(token.href)) return text;
      return `<a href="${escapeHtml(token.href)}" target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      return safeHref(token.href) ? `<a href="${escapeHtml(token.href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(token.text || token.href)}</a>` : escapeHtml(token.text);
    },
  },
});

// Rows are unmounted and remounted as the virtual list scrolls: keep recent renderings.
const cache = new Map<string, string>();
const CACHE_MAX = 600;

/** Render Markdown to safe HTML. */
export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = md.parse(text) as string;
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(text, html);
  return html;
}
