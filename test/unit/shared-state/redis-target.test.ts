import { describe, expect, it } from 'vitest';
import { parseRedisTarget } from '../../../gateway/shared-state/redis-target.js';

describe('parseRedisTarget', () => {
  it('shared:redis-topologies — standalone, TLS, Sentinel and Cluster URLs', () => {
    expect(parseRedisTarget('redis://:pw@10.0.0.1:6380/2')).toEqual({
      mode: 'standalone',
      url: 'redis://:pw@10.0.0.1:6380/2',
      tls: false,
    });
    expect(parseRedisTarget('rediss://redis.internal:6380')).toMatchObject({ mode: 'standalone', tls: true });
    expect(parseRedisTarget('redis-sentinel://app:s%40cret@s1:26379,s2,[::1]:26380/mymaster/3')).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      masterName: 'mymaster',
      db: 3,
      username: 'app',
      password: 's@cret',
    });
    expect(parseRedisTarget('redis-cluster://:pw@n1:7000,n2:7001')).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      password: 'pw',
    });
  });

  it('shared:redis-topologies — bad URLs are refused without echoing them (they may hold a password)', () => {
    for (const bad of [
      'http://:hunter2@h:1',
      'redis-sentinel://:hunter2@h:1',
      'redis-sentinel://:hunter2@h:1/m/x',
      'redis-cluster://:hunter2@h:99999',
      'redis-cluster://:hunter2@h:1/0',
      'redis-cluster://:hunter2@',
    ]) {
      let message = '';
      try {
        parseRedisTarget(bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, bad).toMatch(/^sharedState\.redis\.url: /);
      expect(message).not.toContain('hunter2');
    }
  });
});
