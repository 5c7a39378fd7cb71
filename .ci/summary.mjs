// Prints the plain closing line "N passed, N failed, N skipped" from vitest's JSON report.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exitCode = report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0;
