// `npm run gen:crds`: writes crds/*.yaml from the zod schemas (see crd-document.ts), and the same
// files into the Helm chart's crds/ folder (Helm installs them with the chart).
// `npm run gen:values`: writes the chart's values reference (values-reference.ts).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crdFiles } from './crd-files.js';
import { renderReadme } from './values-reference.js';

if (process.argv[2] === 'values') {
  const path = 'charts/agent-gateway/README.md';
  await writeFile(path, renderReadme(await readFile(path, 'utf8'), 'charts/agent-gateway'));
  process.stdout.write(`wrote the values reference into ${path}\n`);
  process.exit(0);
}

const directories = process.argv[2] === undefined ? ['crds', 'charts/agent-gateway/crds'] : [process.argv[2]];
for (const directory of directories)
  for (const [name, content] of crdFiles()) {
    await writeFile(join(directory, name), content);
    process.stdout.write(`wrote ${join(directory, name)}\n`);
  }
