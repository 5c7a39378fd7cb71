// The policy step of tools/call (issue 41 part 3, DESIGN D26): after the call is resolved,
// permitted and its parameter headers checked, the CEL policies decide (gateway/governance). A
// refusal is a permission error in band, like needsWrite (tools-call-permit.ts): the catalogue's
// `forbidden` with the rule's name and message, never an OAuth challenge (no scope would help).
// The auditor gets the reason `policy` and the rule's name.
import type { Principal } from '../auth/index.js';
import type { CatalogTool } from '../discovery/index.js';
import { catalogueEntry } from '../errors/index.js';
import { decideCall, type PolicyDenial } from '../governance/index.js';
import { noteAudit, noteDenial } from '../telemetry/audit-context.js';
import { McpError } from './jsonrpc.js';

export function checkCallPolicy(
  principal: Principal,
  tool: CatalogTool,
  args: Readonly<Record<string, unknown>> | undefined,
): void {
  const denial = decideCall(principal, tool, args);
  if (denial === undefined) return;
  noteDenial('policy');
  noteAudit({ policy: denial.policy });
  throw policyDenied(tool.name, denial);
}

export function policyDenied(tool: string, denial: PolicyDenial): McpError {
  const entry = catalogueEntry('forbidden');
  return new McpError(
    200,
    entry.jsonRpcCode,
    `Permission denied: ${denial.message} (policy ${denial.policy}, tool ${tool}).`,
    { code: 'forbidden', class: entry.errorClass, policy: denial.policy },
    entry.errorClass,
  );
}
