// `npm run gen:crds`: writes crds/*.yaml from the zod schemas (see crd-document.ts).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crdFiles } from './crd-files.js';

const directory = process.argv[2] ?? 'crds';
for (const [name, content] of crdFiles()) {
  await writeFile(join(directory, name), content);
  process.stdout.write(`wrote ${join(directory, name)}\n`);
}
