// A real Keycloak for the interop test (issue 29): the Quarkus distribution that
// test/infra/ensure-keycloak.sh unpacked and pre-built in ~/.cache/agw-keycloak, started once per
// test file on a free loopback port with its H2 database in a temp dir, stopped with its whole process
// group. A realm is created through the admin REST API from a JSON template with placeholders
// (test/infra/keycloak/), and `keycloakLogin` walks the `kc-form-login` page so no browser is needed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CookieJar } from './cookie-jar.js';
import { freePort } from './free-port.js';

export const KEYCLOAK_VERSION = '26.7.3';
const ADMIN_USER = 'agw-admin';

export interface Keycloak {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** The issuer of a realm, as Keycloak states it in `iss`. */
  issuerOf(realm: string): string;
  /** Creates a realm from a JSON template under test/infra/keycloak/, `${NAME}` filled from values. */
  createRealm(template: string, values: Readonly<Record<string, string>>): Promise<void>;
  /** Adds an OAuth scope (a client scope put in the `scope` claim) that the clients may ask for. */
  addOptionalScope(realm: string, scope: string, clientIds: readonly string[]): Promise<void>;
  /** Keycloak's own log so far (for a failure message). */
  logTail(): Promise<string>;
  stop(): Promise<void>;
}

function keycloakHome(): string {
  const dir = process.env['AGW_KEYCLOAK_DIR'] ?? join(homedir(), '.cache', 'agw-keycloak');
  const home = join(dir, `keycloak-${KEYCLOAK_VERSION}`);
  const stamp = join(home, '.agw-built');
  if (!existsSync(stamp) || !readFileSync(stamp, 'utf8').startsWith(`${KEYCLOAK_VERSION} `))
    throw new Error(`Keycloak ${KEYCLOAK_VERSION} is not installed: run bash test/infra/ensure-keycloak.sh`);
  return home;
}

function progress(message: string): void {
  process.stderr.write(`[keycloak] ${message}\n`);
}

async function waitReady(url: string, child: ChildProcess, logPath: string, timeoutMs: number) {
  const started = Date.now();
  let lastReport = started;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = await readFile(logPath, 'utf8').catch(() => '');
      throw new Error(
        `Keycloak exited before it was ready (${String(child.exitCode)}):\n${log.slice(-3000)}`,
      );
    }
    try {
      const response = await fetch(`${url}/realms/master/.well-known/openid-configuration`);
      if (response.ok) {
        progress(`ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
        return;
      }
    } catch {
      // Not listening yet.
    }
    if (Date.now() - started > timeoutMs) {
      const log = await readFile(logPath, 'utf8').catch(() => '');
      throw new Error(`Keycloak was not ready within ${timeoutMs / 1000} s:\n${log.slice(-3000)}`);
    }
    if (Date.now() - lastReport >= 10_000) {
      lastReport = Date.now();
      progress(`starting… ${Math.round((lastReport - started) / 1000)} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
    const pid = child.pid;
    const hard = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 15_000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      clearTimeout(hard);
      resolve();
    }
  });
}

function fill(template: string, values: Readonly<Record<string, string>>): unknown {
  const text = template.replace(/\$\{([A-Z_]+)\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`realm template needs a value for ${name}`);
    return JSON.stringify(value).slice(1, -1);
  });
  return JSON.parse(text) as unknown;
}

export async function startKeycloak(timeoutMs = 180_000): Promise<Keycloak> {
  const home = keycloakHome();
  const dir = await mkdtemp(join(tmpdir(), 'agw-keycloak-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminPassword = `admin-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const logPath = join(dir, 'keycloak.log');
  const { openSync, closeSync } = await import('node:fs');
  const log = openSync(logPath, 'a');
  progress(`starting Keycloak ${KEYCLOAK_VERSION} on ${url} (15–40 s)`);
  // `start --optimized` runs the build ensure-keycloak.sh made (dev-file H2). `--cache=local` is a
  // start option: without it production mode opens a JGroups cluster transport on fixed ports (7800,
  // 57800) and a non-loopback address. The database and the transaction log live in the temp dir.
  const child = spawn(
    join(home, 'bin', 'kc.sh'),
    [
      'start',
      '--optimized',
      '--http-enabled=true',
      '--http-host=127.0.0.1',
      `--http-port=${port}`,
      '--hostname-strict=false',
      '--cache=local',
      `--db-url=jdbc:h2:file:${join(dir, 'h2', 'keycloakdb')};NON_KEYWORDS=VALUE`,
    ],
    {
      detached: true,
      stdio: ['ignore', log, log],
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: dir,
        ...(process.env['JAVA_HOME'] === undefined ? {} : { JAVA_HOME: process.env['JAVA_HOME'] }),
        KC_BOOTSTRAP_ADMIN_USERNAME: ADMIN_USER,
        KC_BOOTSTRAP_ADMIN_PASSWORD: adminPassword,
        JAVA_OPTS_APPEND: `-Djava.io.tmpdir=${dir} -Dquarkus.transaction-manager.object-store.directory=${join(dir, 'tx')}`,
      },
    },
  );
  closeSync(log);
  // Detached, Keycloak would outlive a test worker that dies without its afterAll.
  const orphanGuard = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
  };
  process.once('exit', orphanGuard);
  const stop = async () => {
    process.off('exit', orphanGuard);
    await stopGroup(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child, logPath, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }

  async function adminToken(): Promise<string> {
    const response = await fetch(`${url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'admin-cli',
        username: ADMIN_USER,
        password: adminPassword,
      }),
    });
    if (!response.ok) throw new Error(`Keycloak admin sign-in failed: ${response.status}`);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  async function admin(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${url}/admin/realms${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await adminToken()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok)
      throw new Error(`Keycloak admin ${method} ${path}: ${response.status} ${await response.text()}`);
    return response;
  }

  return {
    url,
    issuerOf: (realm) => `${url}/realms/${realm}`,
    async createRealm(template, values) {
      const text = await readFile(join(import.meta.dirname, 'keycloak', template), 'utf8');
      await admin('POST', '', fill(text, values));
    },
    async addOptionalScope(realm, scope, clientIds) {
      const created = await admin('POST', `/${realm}/client-scopes`, {
        name: scope,
        protocol: 'openid-connect',
        attributes: { 'include.in.token.scope': 'true', 'display.on.consent.screen': 'false' },
      });
      const scopeId = created.headers.get('location')?.split('/').pop();
      if (scopeId === undefined) throw new Error('Keycloak did not say where the client scope is');
      for (const clientId of clientIds) {
        const found = await admin('GET', `/${realm}/clients?clientId=${encodeURIComponent(clientId)}`);
        const [client] = (await found.json()) as { id: string }[];
        if (client === undefined) throw new Error(`no client ${clientId} in realm ${realm}`);
        await admin('PUT', `/${realm}/clients/${client.id}/optional-client-scopes/${scopeId}`);
      }
    },
    logTail: async () => (await readFile(logPath, 'utf8').catch(() => '')).slice(-3000),
    stop,
  };
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** Follows the authorization request to Keycloak's login form (`kc-form-login`), signs in as
 * `username`, and returns the redirect to `redirectUri` (with `code`, `state` and `iss`). */
export async function keycloakLogin(
  authorizationUrl: URL | string,
  username: string,
  password: string,
  redirectUri: string,
): Promise<URL> {
  const jar = new CookieJar();
  let next = new URL(authorizationUrl);
  let page = '';
  for (let hop = 0; hop < 5; hop += 1) {
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header(next) } });
    jar.take(next, response);
    const location = response.headers.get('location');
    if (location === null) {
      page = await response.text();
      if (response.status !== 200)
        throw new Error(`Keycloak's authorization page answered ${response.status}`);
      break;
    }
    next = new URL(location, next);
    if (next.href.startsWith(redirectUri)) return next;
  }
  const form = /<form[^>]*id="kc-form-login"[^>]*>/.exec(page)?.[0];
  const action = form === undefined ? undefined : /action="([^"]+)"/.exec(form)?.[1];
  if (action === undefined) throw new Error("Keycloak's login page has no kc-form-login form");
  const target = decodeEntities(action);
  const submitted = await fetch(target, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header(target) },
    body: new URLSearchParams({ username, password, credentialId: '' }),
  });
  const location = submitted.headers.get('location');
  if (location === null || !location.startsWith(redirectUri))
    throw new Error(`Keycloak did not redirect to the client after the login form (${submitted.status})`);
  return new URL(location);
}
