// Fails when a requirement in test/requirements.ts has no test naming it (STYLE 14).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REQUIREMENTS } from '../requirements.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') && name !== 'requirements.test.ts' ? [path] : [];
  });
}

describe('requirement coverage', () => {
  const sources = testFiles('test').map((file) => readFileSync(file, 'utf8'));
  for (const id of Object.keys(REQUIREMENTS)) {
    it(`has a test for ${id}`, () => {
      // The id must open a string literal (a test name), e.g. it('auth:401-missing — …').
      const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const named = sources.some((text) => new RegExp(`['"\`]${escaped} —`).test(text));
      expect(named, `no test named "${id} …" (${REQUIREMENTS[id]})`).toBe(true);
    });
  }
});
