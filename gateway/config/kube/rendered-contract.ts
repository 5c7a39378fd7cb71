// The contract between the operator and the gateways' KubeConfigSource (operator/README.md): the
// labels, annotations, names and data entry of the Secrets and ConfigMaps a workspace is rendered
// into. Both sides import these names from here so they cannot drift.
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'agent-gateway-operator';
export const WORKSPACE_LABEL = 'agentgateway.dev/workspace';
export const WORKSPACE_NAMESPACE_LABEL = 'agentgateway.dev/workspace-namespace';
export const REVISION_ANNOTATION = 'agentgateway.dev/revision';
export const PARTS_ANNOTATION = 'agentgateway.dev/parts';
export const PART_ANNOTATION = 'agentgateway.dev/part';
/** The data entry holding a part's JSON fragment of the workspace document. */
export const FRAGMENT_KEY = 'fragment.json';
/** The label selector gateways watch with. */
export const RENDERED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;

export type PartKind = 'ConfigMap' | 'Secret';

export interface PartCounts {
  readonly configmaps: number;
  readonly secrets: number;
}

export function renderedObjectName(workspace: string, kind: PartKind, index: number): string {
  return `agw-ws-${workspace}-${kind === 'ConfigMap' ? 'c' : 's'}${index}`;
}

export function formatParts(counts: PartCounts): string {
  return `configmaps=${counts.configmaps},secrets=${counts.secrets}`;
}

/** Parses `configmaps=<n>,secrets=<m>`; undefined when malformed (the object is then ignored). */
export function parseParts(value: string | undefined): PartCounts | undefined {
  const match = /^configmaps=(\d{1,4}),secrets=(\d{1,4})$/.exec(value ?? '');
  if (match === null) return undefined;
  const configmaps = Number(match[1]);
  const secrets = Number(match[2]);
  if (configmaps < 1) return undefined;
  return { configmaps, secrets };
}

export function parsePartIndex(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,4}$/.test(value)) return undefined;
  return Number(value);
}
