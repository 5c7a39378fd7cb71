import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  describeSecretRef,
  processSecretReader,
  resolveSecret,
  SecretUnavailableError,
  type SecretReader,
} from '../../../gateway/config/index.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';

function readerWith(env: Record<string, string>, files: Record<string, string> = {}): SecretReader {
  return {
    readEnv: (name) => env[name],
    readFile: (path) => {
      const value = files[path];
      if (value === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return value;
    },
  };
}

describe('resolveSecret', () => {
  it('reads an env reference from the environment', () => {
    expect(resolveSecret({ env: 'TOKEN' }, readerWith({ TOKEN: 's3cret' }))).toBe('s3cret');
  });

  it('reads a file reference and trims its trailing newline', () => {
    expect(resolveSecret({ file: '/run/secret' }, readerWith({}, { '/run/secret': 'from-file\n' }))).toBe(
      'from-file',
    );
  });

  it('trims a trailing CRLF from a file', () => {
    expect(resolveSecret({ file: '/run/secret' }, readerWith({}, { '/run/secret': 'from-file\r\n' }))).toBe(
      'from-file',
    );
  });

  it('keeps inner newlines of a file', () => {
    expect(resolveSecret({ file: '/k' }, readerWith({}, { '/k': 'line1\nline2\n' }))).toBe('line1\nline2');
  });

  it('throws SecretUnavailableError naming env:NAME when the variable is missing', () => {
    const attempt = () => resolveSecret({ env: 'MISSING_TOKEN' }, readerWith({ OTHER: 'value-of-other' }));
    expect(attempt).toThrow(SecretUnavailableError);
    expect(attempt).toThrow(/env:MISSING_TOKEN/);
  });

  it('treats an empty variable as unavailable and never echoes a value', () => {
    let caught: unknown;
    try {
      resolveSecret({ env: 'EMPTY' }, readerWith({ EMPTY: '' }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SecretUnavailableError);
    expect((caught as SecretUnavailableError).ref).toEqual({ env: 'EMPTY' });
    expect((caught as Error).message).toBe('secret env:EMPTY is not available');
  });

  it('throws SecretUnavailableError naming file:PATH when the file cannot be read', () => {
    expect(() => resolveSecret({ file: '/nope' }, readerWith({}))).toThrow(/file:\/nope/);
  });

  it('does not put the secret value in the error when a file holds only a newline', () => {
    expect(() => resolveSecret({ file: '/blank' }, readerWith({}, { '/blank': '\n' }))).toThrow(
      SecretUnavailableError,
    );
  });
});

describe('describeSecretRef', () => {
  it('names where the secret lives', () => {
    expect(describeSecretRef({ env: 'A' })).toBe('env:A');
    expect(describeSecretRef({ file: '/x/y' })).toBe('file:/x/y');
  });
});

describe('processSecretReader', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  it('reads the given environment object and real files', async () => {
    const path = join(dir, 'token');
    await writeFile(path, 'file-token\n');
    const reader = processSecretReader({ TOKEN: 'env-token' });
    expect(resolveSecret({ env: 'TOKEN' }, reader)).toBe('env-token');
    expect(resolveSecret({ file: path }, reader)).toBe('file-token');
    expect(() => resolveSecret({ file: join(dir, 'missing') }, reader)).toThrow(SecretUnavailableError);
  });
});
