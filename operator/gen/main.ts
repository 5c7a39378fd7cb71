// `npm run gen:crds`: writes crds/*.yaml from the zod schemas (see crd-document.ts), and the same
// files into the Helm chart's crds/ folder (Helm installs them with the chart).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crdFiles } from './crd-files.js';

const directories = process.argv[2] === undefined ? ['crds', 'charts/agent-gateway/crds'] : [process.argv[2]];
for (const directory of directories)
  for (const [name, content] of crdFiles()) {
    await writeFile(join(directory, name), content);
    process.stdout.write(`wrote ${join(directory, name)}\n`);
  }
