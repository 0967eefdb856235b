/** Base URL normalisation (spec "Inference router": provider registration). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeBaseUrl, BaseUrlError } from '../../../services/inference-router/src/domain/base-url.js';

test('trims, defaults to https, strips trailing slashes and pasted endpoint suffixes', () => {
  const cases: Array<[string, string]> = [
    ['  api.example.com/v1  ', 'https://api.example.com/v1'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1'],
    ['https://api.example.com/v1/chat/completions', 'https://api.example.com/v1'],
    ['https://api.example.com/v1/chat/completions/', 'https://api.example.com/v1'],
    ['http://localhost:11434/v1/models', 'http://localhost:11434/v1'],
    ['HTTP://LOCALHOST:8000/V1/Responses', 'http://localhost:8000/V1'],
    ['https://x.example/openai/v1/embeddings?x=1#y', 'https://x.example/openai/v1'],
    ['https://x.example///', 'https://x.example'],
    ['localhost:1234', 'https://localhost:1234'],
    ['http://[::1]:8080/v1/completions', 'http://[::1]:8080/v1'],
  ];
  for (const [raw, want] of cases) assert.equal(normalizeBaseUrl(raw), want, raw);
});

test('refuses empty, non-http and credential-bearing URLs', () => {
  for (const raw of ['', '   ', 'ftp://example.com', 'file:///etc/passwd', 'https://user:pw@example.com/v1', 'http://']) {
    assert.throws(() => normalizeBaseUrl(raw), BaseUrlError, raw);
  }
});
