#!/usr/bin/env node
// Entry point of the `agent-gateway` command. Runs the compiled CLI on Node >= 22.19 (DESIGN D1).
// On an older Node it re-executes itself with the Node 24 that `npm install` provisions from the
// npm registry package `node` (a devDependency), so a machine with only Node 20 still works.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [major, minor] = process.versions.node.split('.').map(Number);
const supported = major > 22 || (major === 22 && minor >= 19);

if (!supported) {
  const provisioned = join(here, '..', 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(provisioned)) {
    console.error(
      `agent-gateway needs Node >= 22.19 (running ${process.version}). Run "npm install" in the repository to provision Node 24.`,
    );
    process.exit(1);
  }
  // The Node flags it was started with (npm start's heap settings) go to the re-executed process too.
  const result = spawnSync(
    provisioned,
    [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  );
  process.exit(result.status ?? 1);
}

const entry = join(here, '..', 'dist', 'gateway', 'cli', 'cli-main.js');
if (!existsSync(entry)) {
  console.error('agent-gateway is not built yet: run "npm run build" first.');
  process.exit(1);
}
// Telemetry (OTEL_* variables) starts before the gateway's modules load, with the ESM loader hook
// registered first, so its instrumentations see them; off by default.
/** @param {string} name */
const telemetry = (name) => pathToFileURL(join(here, '..', 'dist', 'gateway', 'telemetry', name)).href;
const { otelSettings } = await import(telemetry('otel-settings.js'));
if (otelSettings(process.env).enabled) {
  const { register } = await import('node:module');
  // Only the modules an enabled instrumentation patches go through the hook: wrapping every module
  // costs on every call into it (measured: `npm run bench -- otel`).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['pg', 'ioredis', 'undici', 'http', 'https', 'node:http', 'node:https'] },
  });
  await import(telemetry('otel-start.js'));
}
const { main } = await import(pathToFileURL(entry).href);
await main();
