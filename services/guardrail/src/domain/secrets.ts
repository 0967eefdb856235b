/**
 * Secrets recogniser: provider API keys and tokens (OpenAI/Anthropic `sk-`, AWS `AKIA`, GitHub
 * `ghp_`, Slack `xox`, Google `AIza`, Stripe, GitLab, Hugging Face, npm, SendGrid, Twilio), JWTs,
 * PEM private keys, passwords in connection strings, bearer tokens, and high-entropy values
 * assigned to key-ish names (`api_key=...`, `"client_secret": "..."`). Pure: no I/O.
 * Reports spans and kinds only; callers must never echo the matched value.
 */
import { shannonEntropy } from './checksums.js';
import type { EntitySpan } from './entities.js';

/** A secret span with its kind (for verdicts: kinds, never values). */
export interface SecretSpan extends EntitySpan { kind: string }

const PATTERNS: Array<[string, RegExp, number?]> = [
  ['private_key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g],
  ['anthropic_key', /\bsk-ant-[A-Za-z0-9_-]{20,}/g],
  ['openai_key', /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g],
  ['aws_access_key', /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b/g],
  ['aws_secret_key', /(?<=aws.{0,20}(?:secret|private).{0,20}[=:]\s{0,8}["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi],
  ['github_token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g],
  ['gitlab_token', /\bglpat-[A-Za-z0-9_-]{20,}\b/g],
  ['slack_token', /\bxox[abposre]-[A-Za-z0-9-]{10,}\b/g],
  ['slack_webhook', /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g],
  ['google_api_key', /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ['stripe_key', /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g],
  ['huggingface_token', /\bhf_[A-Za-z0-9]{30,}\b/g],
  ['npm_token', /\bnpm_[A-Za-z0-9]{36}\b/g],
  ['sendgrid_key', /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\b/g],
  ['twilio_key', /\bSK[0-9a-f]{32}\b/g],
  ['jwt', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g],
  ['bearer_token', /(?<=\bBearer\s{1,8})[A-Za-z0-9._~+/-]{20,}=*/g],
  ['basic_auth_header', /(?<=\bAuthorization:\s{0,8}Basic\s{1,8})[A-Za-z0-9+/]{12,}=*/gi],
];
// Password inside a URL: scheme://user:PASSWORD@host
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^:\s/@]{1,256}:([^@\s/]{3,256})@/gi;
// key-ish name, separator, value
const ASSIGNMENT = /(?:^|[\s{,;("'])["']?([A-Za-z0-9_.-]{0,64}(?:api[_-]?key|apikey|secret|token|passwd|password|pwd|pass|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credential|signing[_-]?key)[A-Za-z0-9_.-]{0,64})["']?\s{0,32}(?:[:=]|=>|:=)\s{0,32}["']?([^\s"',;}{)]{6,})["']?/gi;

/** Find secrets in `text`. */
export function findSecrets(text: string): SecretSpan[] {
  const out: SecretSpan[] = [];
  for (const [kind, re] of PATTERNS) {
    for (const m of text.matchAll(re)) out.push({ type: 'SECRET', start: m.index, end: m.index + m[0].length, score: 0.95, recognizer: kind, kind });
  }
  for (const m of text.matchAll(URL_PASSWORD)) {
    const v = m[1]!;
    const at = m.index + m[0].length - 1 - v.length;
    out.push({ type: 'SECRET', start: at, end: at + v.length, score: 0.9, recognizer: 'url_password', kind: 'url_password' });
  }
  for (const m of text.matchAll(ASSIGNMENT)) {
    const name = m[1]!.toLowerCase();
    const v = m[2]!;
    if (/^(?:true|false|null|none|undefined|\*+|x+|\.\.\.|<[^>]*>|\$\{?[\w.]+\}?|process\.env.*|os\.environ.*|your[_-].*|changeme|example.*|string|number)$/i.test(v)) continue;
    const isPassword = /pass|pwd/.test(name);
    const entropy = shannonEntropy(v);
    const mixed = /[A-Za-z]/.test(v) && /\d/.test(v);
    if (!(isPassword ? v.length >= 6 : v.length >= 12 && entropy >= 3 && (mixed || entropy >= 3.5))) continue;
    const at = m.index + m[0].lastIndexOf(v);
    out.push({ type: 'SECRET', start: at, end: at + v.length, score: isPassword ? 0.8 : 0.75, recognizer: 'keyed_value', kind: isPassword ? 'password' : 'keyed_secret' });
  }
  return out;
}
