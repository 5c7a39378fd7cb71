// The `userConnections` section (issue 42): where users' upstream connections live and the keys
// that seal them; the embedded file and the shared database are one or the other.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../gateway/config/index.js';

function problems(userConnections: unknown): { path: string; message: string }[] {
  const result = validateConfig({ version: 1, userConnections });
  return result.ok ? [] : result.problems.map((p) => ({ path: p.path, message: p.message }));
}

describe('userConnections config', () => {
  it('defaults to an in-memory SQLite store without postgres or encryption', () => {
    const result = validateConfig({ version: 1 });
    expect(result.ok && result.config.userConnections).toEqual({ sqlitePath: ':memory:' });
  });

  it('takes a SQLite file, or PostgreSQL as a secret reference, with 1 to 8 sealing keys', () => {
    expect(
      problems({ sqlitePath: '/var/lib/agw/connections.db', encryption: { keys: [{ env: 'K1' }] } }),
    ).toEqual([]);
    expect(
      problems({
        postgres: { connectionString: { env: 'PG_URL' } },
        encryption: { keys: [{ env: 'K1' }, { file: '/run/k2' }] },
      }),
    ).toEqual([]);
  });

  it('refuses a SQLite path together with postgres, naming the path', () => {
    const found = problems({ sqlitePath: '/data/c.db', postgres: { connectionString: { env: 'PG_URL' } } });
    expect(found).toHaveLength(1);
    expect(found[0]?.path).toBe('userConnections.sqlitePath');
    expect(found[0]?.message).toContain('userConnections.postgres');
  });

  it('refuses an inline connection string, no keys, more than 8 keys and unknown fields', () => {
    expect(problems({ postgres: { connectionString: 'postgresql://u:p@h/db' } })[0]?.path).toBe(
      'userConnections.postgres.connectionString',
    );
    expect(problems({ encryption: { keys: [] } })[0]?.path).toBe('userConnections.encryption.keys');
    const nine = Array.from({ length: 9 }, (_, i) => ({ env: `K${i}` }));
    expect(problems({ encryption: { keys: nine } })[0]?.path).toBe('userConnections.encryption.keys');
    expect(problems({ redis: {} })).toHaveLength(1);
  });
});
