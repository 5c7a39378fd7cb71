// Workspace spec.governance.toolLimits on a real kube-apiserver (issue 41 part 4): a valid list is
// admitted as written (with `per` defaulted to subject), and `kubectl apply` refuses a limit without
// a rate, a repeated name and an unknown scope with the CEL or schema message; explain documents it.
import { beforeAll, describe, expect, it } from 'vitest';
import { freshNamespace, kubectl, kubectlOk } from '../support/kube-harness.js';

let ns: string;

beforeAll(async () => {
  ns = await freshNamespace('tool-limits');
});

const workspace = (name: string, toolLimits: unknown[]) =>
  JSON.stringify({
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name },
    spec: { governance: { toolLimits } },
  });

async function refusal(document: string): Promise<string> {
  const result = await kubectl(['apply', '-n', ns, '-f', '-'], document);
  expect(result.code).not.toBe(0);
  return result.stderr;
}

describe('Workspace spec.governance.toolLimits', () => {
  it('crd:workspace-tool-limits — limits are admitted with per defaulted; no rate, a repeated name or an unknown scope is refused at apply', async () => {
    const email = { name: 'email', tools: ['mail__send_*'], callsPerHour: 10 };
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      workspace('governed', [email, { name: 'writes', tools: ['*'], per: 'workspace', callsPerDay: 1000 }]),
    );
    const stored = JSON.parse(
      await kubectlOk([
        'get',
        'workspace',
        'governed',
        '-n',
        ns,
        '-o',
        'jsonpath={.spec.governance.toolLimits}',
      ]),
    ) as unknown;
    expect(stored).toEqual([
      { ...email, per: 'subject' },
      { name: 'writes', tools: ['*'], per: 'workspace', callsPerDay: 1000 },
    ]);
    expect(await refusal(workspace('no-rate', [{ name: 'a', tools: ['x'] }]))).toContain(
      'governance.toolLimits[]: set callsPerMinute, callsPerHour or callsPerDay',
    );
    expect(await refusal(workspace('twice', [email, { ...email, tools: ['y'] }]))).toContain(
      'governance.toolLimits: each limit name may be used once',
    );
    expect(await refusal(workspace('scope', [{ ...email, per: 'tenant' }]))).toContain(
      'spec.governance.toolLimits[0].per',
    );
    expect(await kubectlOk(['explain', 'workspace.spec.governance.toolLimits.per'])).toContain(
      'Whom the limit counts per',
    );
  });
});
