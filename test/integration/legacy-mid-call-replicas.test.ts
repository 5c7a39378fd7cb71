// A 2025-era client's answer to a mid-call question POSTed to another replica (issue 24): two
// gateways share a real Redis; the call's stream is held by one, the answer lands on the other and is
// forwarded to the owner over the bridge forwarder, which re-checks it. A mismatch is refused alike.
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startConformanceServer,
  type RunningConformanceServer,
} from '../fixtures/upstreams/conformance-server.js';
import { keyRecord, newKey, type Harness } from '../support/gateway-harness.js';
import { LegacyCall, postAnswer } from '../support/legacy-stream.js';
import { startReplicaHarnesses, type RedisReplicas } from '../support/redis-replicas.js';

const key = newKey();
const other = newKey();
let replicas: RedisReplicas<Harness> | undefined;
let conf: RunningConformanceServer;
let owner: Harness;
let peer: Harness;

beforeAll(async () => {
  conf = await startConformanceServer();
  replicas = await startReplicaHarnesses(2, {
    workspaces: [
      {
        name: 'demo',
        mcpSources: [{ name: 'conf', transport: 'streamable-http', url: conf.url }],
        keys: [keyRecord(key, { access: 'write' }), keyRecord(other, { access: 'write' })],
      },
    ],
  });
  [owner, peer] = replicas.gateways as [Harness, Harness];
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await conf?.close();
});

it('mcp:legacy-answer-other-replica — an answer POSTed to another replica reaches the call on its owner', async () => {
  const call = new LegacyCall(owner.url, key.key, {
    name: 'conf__test_elicitation',
    arguments: { message: 'Who?' },
  });
  const question = await call.question();
  expect(question.method).toBe('elicitation/create');
  const answer = { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  const stolen = await postAnswer(peer.url, other.key, { id: question.id, result: answer });
  expect(stolen.status).toBe(400);
  const accepted = await postAnswer(peer.url, key.key, { id: question.id, result: answer });
  expect(accepted).toEqual({ status: 202, body: '' });
  const final = (await call.final()) as { result?: { content?: unknown } };
  expect(JSON.stringify(final.result?.content)).toContain('ada@example.com');
  const replay = await postAnswer(peer.url, key.key, { id: question.id, result: answer });
  expect(replay).toEqual(stolen);
  const replayOnOwner = await postAnswer(owner.url, key.key, { id: question.id, result: answer });
  expect(replayOnOwner).toEqual(stolen);
});

it('mcp:legacy-sampling-other-replica — sampling answered through the other replica', async () => {
  const call = new LegacyCall(peer.url, key.key, {
    name: 'conf__test_sampling',
    arguments: { prompt: 'Capital of France?' },
  });
  const question = await call.question();
  expect(question.method).toBe('sampling/createMessage');
  const accepted = await postAnswer(owner.url, key.key, {
    id: question.id,
    result: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' },
  });
  expect(accepted.status).toBe(202);
  const final = (await call.final()) as { result?: { content?: unknown } };
  expect(JSON.stringify(final.result?.content)).toContain('LLM response: Paris');
});
