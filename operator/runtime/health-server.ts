// The operator's probe endpoints (`--health-port`): `/healthz` answers while the process runs,
// `/readyz` once every informer has listed (503 before), and both say whether this replica leads.
// Every replica is ready, leader or not: a standby must not be restarted for waiting its turn.
import { createServer, type Server } from 'node:http';

export interface HealthState {
  synced(): boolean;
  isLeader(): boolean;
}

export function startHealthServer(port: number, host: string, state: HealthState): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?', 1)[0];
    const ready = state.synced();
    const status =
      request.method !== 'GET' && request.method !== 'HEAD'
        ? 405
        : path === '/healthz'
          ? 200
          : path === '/readyz'
            ? ready
              ? 200
              : 503
            : 404;
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(
      status === 404 || status === 405
        ? '{"error":"not_found"}\n'
        : `${JSON.stringify({ status: status === 200 ? 'ok' : 'syncing', leader: state.isLeader() })}\n`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
