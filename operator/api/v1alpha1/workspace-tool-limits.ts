// Workspace spec.governance.toolLimits (issue 41 part 4): the config contract's schema as it is
// (gateway/config/tool-limits-schema.ts); what its refinements say is repeated here as CEL, so
// `kubectl apply` refuses a limit without a rate or a repeated name before any gateway reads it.
import type { CelRule } from './crd-definition.js';

export const WORKSPACE_TOOL_LIMIT_RULES: Readonly<Record<string, readonly CelRule[]>> = {
  'spec.governance.toolLimits': [
    {
      rule: 'self.all(l, self.exists_one(m, m.name == l.name))',
      message: 'governance.toolLimits: each limit name may be used once',
    },
  ],
  'spec.governance.toolLimits[]': [
    {
      rule: 'has(self.callsPerMinute) || has(self.callsPerHour) || has(self.callsPerDay)',
      message: 'governance.toolLimits[]: set callsPerMinute, callsPerHour or callsPerDay',
    },
  ],
};
