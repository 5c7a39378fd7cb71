// The audit record's contract (issue 29, docs/audit.md): built in one place, never a key outside the
// schema, caller-sent names escaped and clipped, principals of either kind, decisions derived from
// notes and error codes.
import { describe, expect, it } from 'vitest';
import {
  AuditRecordSchema,
  auditPrincipal,
  buildAuditRecord,
  credentialDenial,
  DENIAL_REASONS,
  LIMITS,
  refusedMcpMethod,
  safeText,
  type AuditInput,
} from '../../../gateway/telemetry/audit-record.js';

const base: AuditInput = {
  startedAt: Date.parse('2026-05-01T10:00:00.000Z'),
  requestId: 'req-1',
  face: 'mcp',
  method: 'tools/call',
  status: 200,
  durationMs: 12.345,
};

const HOSTILE = [
  'evil\n{"schema":"agw.audit.v1","decision":"allowed"}',
  'tab\tcr\rnul\u0000del\u007fc1\u0085ls\u2028ps\u2029rlo\u202ebom\ufeff',
  'lone\ud800surrogate',
  'x'.repeat(10_000),
  '😀'.repeat(500),
];

describe('audit record', () => {
  it('audit:schema-closed — every record built from any input parses with the strict schema', () => {
    const inputs: AuditInput[] = [
      base,
      {
        ...base,
        face: 'rest',
        method: 'POST /agent/search',
        status: 401,
        errorCode: 'unauthenticated',
        errorClass: 'proxy_authorization',
        denial: 'credential_missing',
      },
      ...HOSTILE.map((text) => ({
        ...base,
        requestId: text,
        clientRequestId: text,
        method: text,
        workspace: text,
        source: text,
        target: { kind: 'tool' as const, name: text, requested: text },
        principal: { keyId: text, keyFingerprint: text },
        errorCode: text,
        errorClass: text,
        traceId: text,
        status: 1e9,
        durationMs: -5,
      })),
      {
        ...base,
        traceId: '0af7651916cd43dd8448eb211c80319c',
        principal: {
          keyId: 'k1',
          keyFingerprint: 'abcdef012345',
          oidc: { issuer: 'https://idp', subject: 's' },
        },
        relayedBy: 'call_tool',
        streamed: true,
        clientGone: true,
        era: 'legacy',
      },
    ];
    for (const input of inputs) {
      const record = buildAuditRecord(input);
      expect(() => AuditRecordSchema.parse(record)).not.toThrow();
      const line = JSON.stringify(record);
      expect(line.includes('\n')).toBe(false);
      expect(line).not.toMatch(/[\u0000-\u001f\u2028\u2029\u202e]/);
    }
  });

  it('records the fields of an allowed tool call, and nothing else', () => {
    const record = buildAuditRecord({
      ...base,
      traceId: '0af7651916cd43dd8448eb211c80319c',
      era: 'modern',
      workspace: 'acme',
      principal: { keyId: 'k1', keyFingerprint: 'ABCDEF012345' },
      source: 'demo',
      target: { kind: 'tool', name: 'demo__echo', requested: 'echo' },
    });
    expect(record).toEqual({
      schema: 'agw.audit.v5',
      time: '2026-05-01T10:00:00.000Z',
      request_id: 'req-1',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      face: 'mcp',
      method: 'tools/call',
      era: 'modern',
      workspace: 'acme',
      principal: { kind: 'api_key', key_id: 'k1', key_fingerprint: 'abcdef012345' },
      source: 'demo',
      target: { kind: 'tool', name: 'demo__echo', requested: 'echo' },
      decision: 'allowed',
      outcome: 'ok',
      status: 200,
      duration_ms: 12.3,
    });
  });

  it('keeps a caller request id only when it is a short token (v3), never escaped or clipped', () => {
    expect(buildAuditRecord({ ...base, clientRequestId: 'abc-1.2:3_X' }).client_request_id).toBe(
      'abc-1.2:3_X',
    );
    for (const text of [...HOSTILE, 'x'.repeat(129), 'has space', ''])
      expect(buildAuditRecord({ ...base, clientRequestId: text }).client_request_id).toBeUndefined();
  });

  it('escapes control characters and clips long names', () => {
    expect(safeText('a\nb', 10)).toBe('a\\u000ab');
    expect(safeText('a\u202eb', 10)).toBe('a\\u202eb');
    const clipped = safeText('x'.repeat(500), LIMITS.name);
    expect(clipped).toHaveLength(LIMITS.name);
    expect(clipped.endsWith('…')).toBe(true);
    expect(safeText('😀'.repeat(150), LIMITS.name).isWellFormed()).toBe(true);
    expect(safeText('a\ud800', 10)).toBe('a\ufffd');
  });

  it('unknown MCP methods are recorded as other; REST methods name the route', () => {
    expect(buildAuditRecord({ ...base, method: 'x/y\n' }).method).toBe('other');
    expect(buildAuditRecord({ ...base, method: 'mcp.response' }).method).toBe('mcp.response');
    expect(buildAuditRecord({ ...base, face: 'rest', method: 'POST /agent/query' }).method).toBe(
      'POST /agent/query',
    );
  });

  it('derives the decision: a noted reason first, then the refusal codes', () => {
    const of = (extra: Partial<AuditInput>) => {
      const record = buildAuditRecord({ ...base, ...extra });
      return [record.decision, record.reason, record.outcome];
    };
    expect(of({})).toEqual(['allowed', undefined, 'ok']);
    expect(of({ errorCode: 'unauthenticated', errorClass: 'proxy_authorization' })).toEqual([
      'denied',
      'credential_invalid',
      'proxy_authorization',
    ]);
    expect(of({ errorCode: 'rate_limited', errorClass: 'request' })).toEqual([
      'denied',
      'rate_limited',
      'request',
    ]);
    expect(
      of({ errorCode: 'forbidden', errorClass: 'proxy_authorization', denial: 'write_required' }),
    ).toEqual(['denied', 'write_required', 'proxy_authorization']);
    // An invisible tool: the caller heard "unknown tool" (-32602, class request); the auditor sees why.
    expect(of({ errorCode: '-32602', errorClass: 'request', denial: 'not_visible' })).toEqual([
      'denied',
      'not_visible',
      'request',
    ]);
    expect(of({ errorCode: '-32602', errorClass: 'request' })).toEqual(['allowed', undefined, 'request']);
    expect(of({ errorClass: 'no-such-class' })[2]).toBe('internal');
  });

  it('audit:refused-method-known-only — a refused request records a peeked or Mcp-Method method only from the known list', () => {
    expect(refusedMcpMethod('tools/call', undefined)).toBe('tools/call');
    expect(refusedMcpMethod(undefined, 'prompts/get')).toBe('prompts/get');
    expect(refusedMcpMethod('tools/call', 'prompts/get')).toBe('tools/call');
    expect(refusedMcpMethod('x/evil', 'resources/read')).toBe('resources/read');
    expect(refusedMcpMethod('notifications/initialized', undefined)).toBeUndefined();
    expect(refusedMcpMethod('tools/call\n', ['tools/call'])).toBeUndefined();
    expect(refusedMcpMethod('y'.repeat(10_000), 'z')).toBeUndefined();
    const record = buildAuditRecord({
      ...base,
      errorCode: 'rate_limited',
      errorClass: 'request',
      denial: 'quota_exceeded',
    });
    expect([record.decision, record.reason, record.outcome]).toEqual(['denied', 'quota_exceeded', 'request']);
    expect(() => AuditRecordSchema.parse(record)).not.toThrow();
  });

  it('maps every auth gate reason to a closed denial reason', () => {
    expect(credentialDenial('missing')).toBe('credential_missing');
    expect(credentialDenial('not-bearer')).toBe('credential_not_bearer');
    expect(credentialDenial('wrong-audience')).toBe('credential_wrong_audience');
    expect(credentialDenial('no-workspace')).toBe('identity_not_admitted');
    expect(credentialDenial('ambiguous')).toBe('identity_not_admitted');
    expect(credentialDenial('something new\n')).toBe('credential_invalid');
    for (const reason of ['unknown', 'revoked', 'expired', 'malformed'])
      expect(DENIAL_REASONS).toContain(credentialDenial(reason));
  });
});

describe('audit principal', () => {
  it('an API key is its id and fingerprint, never more', () => {
    expect(auditPrincipal({ keyId: 'k1', keyFingerprint: '0123456789ab' })).toEqual({
      kind: 'api_key',
      key_id: 'k1',
      key_fingerprint: '0123456789ab',
    });
  });

  it('an OAuth caller is its issuer and subject (the principal carries `oidc`)', () => {
    expect(
      auditPrincipal({
        keyId: 'oidc:abc',
        keyFingerprint: 'abc',
        oidc: { issuer: 'https://idp.example/realms/a', subject: 'user-1' },
      }),
    ).toEqual({ kind: 'oidc', issuer: 'https://idp.example/realms/a', subject: 'user-1' });
  });

  it('extension point: a principal with an explicit kind is read by that kind; an unknown kind has none', () => {
    expect(auditPrincipal({ kind: 'oidc', oidc: { issuer: 'https://i', subject: 's' } })?.kind).toBe('oidc');
    expect(auditPrincipal({ kind: 'api_key', keyId: 'k', keyFingerprint: 'ab' })?.kind).toBe('api_key');
    expect(auditPrincipal({ kind: 'mtls', keyId: 'k', keyFingerprint: 'ab' })).toBeUndefined();
    expect(auditPrincipal(undefined)).toBeUndefined();
  });
});
