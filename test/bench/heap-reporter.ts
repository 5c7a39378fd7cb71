// Loaded with `--import` into a benchmark participant (issue 26): on SIGUSR2 it writes the
// process's memoryUsage() as JSON to the file named by AGW_BENCH_HEAP_FILE, so the memory benchmark
// can read the V8 heap of a process it only sees from outside. Does nothing without the variable.
import { writeFileSync } from 'node:fs';

const file = process.env['AGW_BENCH_HEAP_FILE'];
if (file !== undefined && file !== '')
  process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify(process.memoryUsage())));
