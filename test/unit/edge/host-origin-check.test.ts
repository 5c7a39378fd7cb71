import { describe, expect, it } from 'vitest';
import { validateConfig, type ServerConfig } from '../../../gateway/config/index.js';
import { hostOriginProblem } from '../../../gateway/edge/host-origin-check.js';

function server(overrides: Record<string, unknown>): ServerConfig {
  const parsed = validateConfig({ version: 1, server: overrides });
  if (!parsed.ok) throw new Error('bad config');
  return parsed.config.server;
}

describe('Host and Origin checks', () => {
  it('auth:dns-rebinding — a loopback-bound gateway accepts loopback Hosts and Origins and refuses rebound names', () => {
    const s = server({ host: '127.0.0.1' });
    expect(hostOriginProblem(s, '127.0.0.1:8080', undefined)).toBeUndefined();
    expect(hostOriginProblem(s, 'localhost:8080', 'http://localhost:3000')).toBeUndefined();
    expect(hostOriginProblem(s, '[::1]:8080', undefined)).toBeUndefined();
    expect(hostOriginProblem(s, 'evil.example.com', undefined)).toBe('host-not-allowed');
    expect(hostOriginProblem(s, '127.0.0.1:8080', 'https://evil.example.com')).toBe('origin-not-allowed');
    expect(hostOriginProblem(s, '127.0.0.1:8080', 'not a url')).toBe('origin-not-allowed');
  });
  it('a gateway bound to all interfaces accepts any Host unless allowedHosts is set', () => {
    expect(hostOriginProblem(server({ host: '0.0.0.0' }), 'gw.example.com', undefined)).toBeUndefined();
    const listed = server({ host: '0.0.0.0', allowedHosts: ['gw.example.com'] });
    expect(hostOriginProblem(listed, 'gw.example.com:443', undefined)).toBeUndefined();
    expect(hostOriginProblem(listed, 'other.example.com', undefined)).toBe('host-not-allowed');
  });
  it('listed Origins are accepted whatever the bind', () => {
    const s = server({ host: '0.0.0.0', allowedOrigins: ['https://app.example.com'] });
    expect(hostOriginProblem(s, 'gw', 'https://app.example.com')).toBeUndefined();
    expect(hostOriginProblem(s, 'gw', 'http://localhost:3000')).toBe('origin-not-allowed');
  });
  it('auth:host-strict — Host is parsed as name[:port]; userinfo, paths, spaces and a missing Host are refused where a restriction applies', () => {
    const loopback = server({ host: '127.0.0.1' });
    for (const host of [
      '127.0.0.1:80@evil.com',
      'evil.com#127.0.0.1',
      '127.0.0.1/x',
      '127.0.0.1 evil',
      '',
      ':80',
    ])
      expect(hostOriginProblem(loopback, host, undefined), host).toBe('host-not-allowed');
    expect(hostOriginProblem(loopback, undefined, undefined)).toBe('host-not-allowed');
    expect(hostOriginProblem(loopback, 'LOCALHOST:8080', undefined)).toBeUndefined();
    const listed = server({ host: '0.0.0.0', allowedHosts: ['gw.example.com'] });
    expect(hostOriginProblem(listed, undefined, undefined)).toBe('host-not-allowed');
    expect(hostOriginProblem(listed, 'gw.example.com@evil.com', undefined)).toBe('host-not-allowed');
    expect(hostOriginProblem(listed, 'GW.example.com', undefined)).toBeUndefined();
    // Bound to all interfaces with no list: any well-formed Host, or none, is accepted.
    expect(hostOriginProblem(server({ host: '0.0.0.0' }), undefined, undefined)).toBeUndefined();
  });
});
