// The CRDs in crds/ are generated from the zod schemas (one source of truth); regenerating must not
// change them, and every kind meets the conventions the generator enforces.
import { readFile, readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_KEY, KINDS } from '../../../operator/api/v1alpha1/index.js';
import { crdDocument, CrdConventionError } from '../../../operator/gen/crd-document.js';
import { crdFiles } from '../../../operator/gen/crd-files.js';
import { renderReadme } from '../../../operator/gen/values-reference.js';
import { z } from 'zod';

describe('generated CRDs', () => {
  it('crd:generated-up-to-date — crds/ holds exactly what `npm run gen:crds` writes', async () => {
    const files = crdFiles();
    const onDisk = (await readdir('crds')).filter((name) => name.endsWith('.yaml')).sort();
    expect(onDisk).toEqual([...files.keys()].sort());
    for (const [name, content] of files) expect(await readFile(`crds/${name}`, 'utf8'), name).toBe(content);
  });

  it('helm:crds-in-chart — the chart installs exactly the generated CRDs', async () => {
    const files = crdFiles();
    const inChart = (await readdir('charts/agent-gateway/crds'))
      .filter((name) => name.endsWith('.yaml'))
      .sort();
    expect(inChart).toEqual([...files.keys()].sort());
    for (const [name, content] of files)
      expect(await readFile(`charts/agent-gateway/crds/${name}`, 'utf8'), name).toBe(content);
  });

  it('crd:conventions — every kind has a status subresource, Ready printer column, categories and short names', () => {
    for (const definition of KINDS) {
      const crd = parse(crdFiles().get(`agentgateway.dev_${definition.plural}.yaml`)!) as {
        spec: { names: { categories: string[]; shortNames: string[] }; versions: Record<string, unknown>[] };
      };
      const version = crd.spec.versions[0]!;
      expect(version['subresources']).toEqual({ status: {} });
      expect(JSON.stringify(version['additionalPrinterColumns'])).toContain('Ready');
      expect(crd.spec.names.categories).toEqual(['agentgateway']);
      expect(crd.spec.names.shortNames.length).toBeGreaterThan(0);
    }
  });

  it('crd:conventions — the generator refuses a field without a description or without bounds', () => {
    const loose = {
      ...API_KEY,
      spec: z.strictObject({
        note: z.string(),
        list: z.array(z.string().max(3).describe('x')).describe('y'),
      }),
    };
    expect(() => crdDocument(loose)).toThrow(CrdConventionError);
    try {
      crdDocument(loose);
    } catch (error) {
      const problems = (error as CrdConventionError).problems;
      expect(problems).toContain('spec.note: has no description (kubectl explain shows it)');
      expect(problems).toContain('spec.note: string without maxLength or enum');
      expect(problems).toContain('spec.list: list without maxItems');
    }
  });
});

describe('the chart values reference', () => {
  it('helm:values-reference — the README table is what `npm run gen:values` writes from the schema', async () => {
    const path = 'charts/agent-gateway/README.md';
    const readme = await readFile(path, 'utf8');
    expect(readme).toBe(renderReadme(readme, 'charts/agent-gateway'));
    // Every schema leaf has a row and a description.
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(60);
    for (const row of rows) expect(row.split('|')[4]?.trim(), row).not.toBe('');
  });
});
