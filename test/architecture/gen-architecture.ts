// `npm run gen:architecture`: redraws the layer picture in docs/architecture.md from the code.
import { readFile, writeFile } from 'node:fs/promises';
import { renderLayerPicture, withPicture } from './layer-picture.js';
import { cruiseRooms } from './room-graph.js';

const DOCUMENT = 'docs/architecture.md';
const graph = await cruiseRooms(process.cwd());
const before = await readFile(DOCUMENT, 'utf8');
const after = withPicture(before, renderLayerPicture(graph));
await writeFile(DOCUMENT, after);
console.log(
  `${DOCUMENT}: ${after === before ? 'unchanged' : 'picture redrawn'} (${graph.edges.length} room-to-room imports)`,
);
