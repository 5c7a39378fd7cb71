// `npm run bench`: runs every benchmark and prints numbers, ratios and conditions. Never asserts.
import { restBench } from './rest-bench.js';

await restBench();
