// A benchmark upstream in its own process: the 2026-07-28 fixture server on a free port. Prints its
// URL as one JSON line on stdout and runs until stdin closes or it is killed.
import { startModernServer } from '../fixtures/upstreams/modern-server.js';

const server = await startModernServer();
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
