// The operator's half of pinning (issue 41): who may report, what a report writes, and an API server
// that cannot review a token — against twins (no cluster).
import { describe, expect, it } from 'vitest';
import { createPinoLogger } from '../../../gateway/telemetry/index.js';
import { PinReports } from '../../../operator/controllers/pin-reports.js';
import { MemoryEventRecorder } from '../../../operator/kube/event-recorder.js';
import { MemoryTokenReviewer, type TokenReviewer } from '../../../operator/kube/token-reviewer.js';
import { controllerCaches, RecordingWriter } from '../../support/operator-controller.js';
import { meta, mcpSource } from '../../support/operator-objects.js';

const GATEWAY = 'system:serviceaccount:agw:agw-gateway';
const DIGEST = `sha256:${'a'.repeat(64)}`;
const REPORT = {
  mode: 'pin',
  unapproved: [
    { tool: 'echo', change: 'changed', fields: ['description'], digest: DIGEST, description: 'New.' },
  ],
};

function reports(reviewer: TokenReviewer, status?: Record<string, unknown>) {
  const writer = new RecordingWriter();
  const events = new MemoryEventRecorder();
  const source = {
    ...mcpSource(meta('changing', 'tenant'), 'pins', { url: 'http://x/mcp' }),
    ...(status === undefined ? {} : { status }),
  };
  const pins = new PinReports({
    caches: controllerCaches({ mcpSources: (ns) => (ns === 'tenant' ? [source] : []) }),
    writer,
    events,
    reviewer,
    gatewayUser: GATEWAY,
    logger: createPinoLogger({ level: 'silent' }),
  });
  return { pins, writer, events };
}

describe('pinning reports', () => {
  it('pins:report-writes-status — a gateway report becomes status.pinning and a Warning Event naming the change', async () => {
    const { pins, writer, events } = reports(new MemoryTokenReviewer({ gw: GATEWAY }));
    expect(await pins.handle('tenant', 'changing', 'gw', REPORT)).toEqual({ status: 202 });
    expect(writer.statuses).toMatchObject([
      {
        plural: 'mcpsources',
        name: 'changing',
        status: {
          pinning: { mode: 'pin', unapprovedCount: 1, unapproved: [{ tool: 'echo', fields: 'description' }] },
        },
      },
    ]);
    expect(events.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      [
        'Warning',
        'ToolDefinitionsNotApproved',
        `1 tool definition(s) held until approved: echo (changed: description; approve ${DIGEST})`,
      ],
    ]);
  });

  it('pins:report-unchanged — a report the status already shows writes nothing', async () => {
    const shown = {
      pinning: { mode: 'pin', unapprovedCount: 1, unapproved: [{ tool: 'echo', digest: DIGEST }] },
    };
    const { pins, writer, events } = reports(new MemoryTokenReviewer({ gw: GATEWAY }), shown);
    expect(await pins.handle('tenant', 'changing', 'gw', REPORT)).toEqual({ status: 202 });
    expect(writer.statuses).toEqual([]);
    expect(events.events).toEqual([]);
  });

  it('pins:report-refusals — other users, unknown sources and malformed reports are refused; a review is reused for a minute', async () => {
    const reviewer = new MemoryTokenReviewer({ gw: GATEWAY, other: 'system:serviceaccount:agw:intruder' });
    const { pins, writer } = reports(reviewer);
    expect(await pins.handle('tenant', 'changing', undefined, REPORT)).toEqual({ status: 401 });
    expect(await pins.handle('tenant', 'changing', 'other', REPORT)).toEqual({ status: 401 });
    expect(await pins.handle('tenant', 'changing', 'forged', REPORT)).toEqual({ status: 401 });
    expect(await pins.handle('tenant', 'missing', 'gw', REPORT)).toEqual({ status: 404 });
    expect(await pins.handle('other-tenant', 'changing', 'gw', REPORT)).toEqual({ status: 404 });
    expect(await pins.handle('tenant', 'changing', 'gw', { ...REPORT, mode: 'hold' })).toEqual({
      status: 400,
    });
    expect(writer.statuses).toEqual([]);
    // One review each for other, forged and gw (gw's three reports share one); none without a token.
    expect(reviewer.reviews).toBe(3);
  });

  it('pins:review-unavailable — an API server that cannot review answers 503 and is asked again next time', async () => {
    let up = false;
    const reviewer: TokenReviewer = {
      review: () => (up ? Promise.resolve(GATEWAY) : Promise.reject(new Error('apiserver timed out'))),
    };
    const { pins, writer } = reports(reviewer);
    expect(await pins.handle('tenant', 'changing', 'gw', REPORT)).toEqual({ status: 503 });
    up = true;
    expect(await pins.handle('tenant', 'changing', 'gw', REPORT)).toEqual({ status: 202 });
    expect(writer.statuses).toHaveLength(1);
  });
});
