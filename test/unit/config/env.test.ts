/**
 * main/config/env.ts: the environment parsing helpers every reader uses. Each refusal is a
 * `ConfigError` whose message names the variable to set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, bool, fraction, int, isPlaceholder, list, secret, str } from '../../../main/config/env.js';
import * as index from '../../../main/config/index.js';

/** Assert `fn` throws a ConfigError whose message matches `re`. */
function refuses(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof ConfigError && err.name === 'ConfigError' && re.test(err.message));
}

test('str trims; unset is undefined', () => {
  assert.equal(str({ A: '  x  ' }, 'A'), 'x');
  assert.equal(str({}, 'A'), undefined);
  assert.equal(str({ A: '   ' }, 'A'), '');
});

test('secret reads NAME or the file NAME_FILE names (file wins), trimmed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-env-'));
  const file = join(dir, 'key');
  writeFileSync(file, '  from-file\n');
  assert.equal(secret({ K: 'direct' }, 'K'), 'direct');
  assert.equal(secret({ K: 'direct', K_FILE: file }, 'K'), 'from-file');
  assert.equal(secret({}, 'K'), undefined);
  refuses(() => secret({ K_FILE: join(dir, 'missing') }, 'K'), /^K_FILE points at .*missing, which cannot be read$/);
});

test('int: default when unset or empty, whole numbers within bounds only', () => {
  assert.equal(int({}, 'N', 7, 1, 10), 7);
  assert.equal(int({ N: '' }, 'N', 7, 1, 10), 7);
  assert.equal(int({ N: ' 10 ' }, 'N', 7, 1, 10), 10);
  refuses(() => int({ N: '1.5' }, 'N', 7, 1, 10), /^N must be a whole number, got "1.5"$/);
  refuses(() => int({ N: '-1' }, 'N', 7, 1, 10), /^N must be a whole number, got "-1"$/);
  refuses(() => int({ N: '11' }, 'N', 7, 1, 10), /^N must be between 1 and 10, got 11$/);
  refuses(() => int({ N: '0' }, 'N', 7, 1, 10), /^N must be between 1 and 10, got 0$/);
});

test('fraction: any finite number within bounds', () => {
  assert.equal(fraction({}, 'F', 0.5, 0, 1), 0.5);
  assert.equal(fraction({ F: '0.25' }, 'F', 0.5, 0, 1), 0.25);
  refuses(() => fraction({ F: '1.5' }, 'F', 0.5, 0, 1), /^F must be a number between 0 and 1, got "1.5"$/);
  refuses(() => fraction({ F: 'abc' }, 'F', 0.5, 0, 1), /^F must be a number between 0 and 1/);
  refuses(() => fraction({ F: 'Infinity' }, 'F', 0.5, 0, 1e9), /^F must be a number/);
});

test('bool: true/false/1/0/yes/no/on/off in any case', () => {
  for (const v of ['1', 'true', 'YES', 'On']) assert.equal(bool({ B: v }, 'B', false), true, v);
  for (const v of ['0', 'false', 'No', 'OFF']) assert.equal(bool({ B: v }, 'B', true), false, v);
  assert.equal(bool({}, 'B', true), true);
  assert.equal(bool({ B: '' }, 'B', false), false);
  refuses(() => bool({ B: 'maybe' }, 'B', true), /^B must be true or false, got "maybe"$/);
});

test('list splits on commas, trims, drops empties', () => {
  assert.deepEqual(list(' a, b ,,c '), ['a', 'b', 'c']);
  assert.deepEqual(list(undefined), []);
  assert.deepEqual(list(''), []);
});

test('isPlaceholder spots template values, not random keys', () => {
  for (const v of ['changeme', 'CHANGE_ME', 'placeholder', 'secret', 'your-key-here', 'xxxx', '<key>', '${KEY}', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'my-changeme-key-0123456789abcdef']) {
    assert.equal(isPlaceholder(v), true, v);
  }
  assert.equal(isPlaceholder('q8WJ3vH0z1tR6yKpL2sNfX9cB4mD7gAe'), false);
});

test('main/config/index.ts re-exports the helpers for existing callers', () => {
  assert.equal(index.ConfigError, ConfigError);
  assert.equal(index.int, int);
  assert.equal(index.bool, bool);
  assert.equal(index.str, str);
  assert.equal(index.secret, secret);
  assert.equal(index.list, list);
  assert.equal(index.isPlaceholder, isPlaceholder);
});
