// The Kubernetes objects of an MCP server the operator runs (issue 40, D25), from a RunPlan: a
// Deployment hardened by default (non-root 65532, read-only root, no privilege escalation, every
// capability dropped, RuntimeDefault seccomp, no ServiceAccount token, limits always set, an
// emptyDir /tmp), a Service, and a NetworkPolicy (ingress from the gateway pods only, egress to the
// cluster DNS and the listed CIDRs only); stdio servers get the bridge copied in by an init
// container of the operator's own image, HTTP servers the bridge as a proxy sidecar in front of
// them; either way the bridge checks the gateways' token and owns the port the Service targets. All owned by the McpSource; the content hash on the
// Deployment lets the controller skip writes that would change nothing. Pure.
import { createHash } from 'node:crypto';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../../gateway/config/kube/index.js';
import { tokenSecretName, workloadName, type RunPlan } from './workload-plan.js';

export const SOURCE_LABEL = 'agentgateway.dev/mcp-source';
/** The workspace of the source (not agentgateway.dev/workspace: that one marks rendered parts). */
export const SOURCE_WORKSPACE_LABEL = 'agentgateway.dev/source-workspace';
export const WORKLOAD_HASH_ANNOTATION = 'agentgateway.dev/workload-hash';
export const TOKEN_KEY = 'token';

const UID = 65532;
const TOKEN_DIR = '/agw-token';
const BRIDGE_DIR = '/agw';
const INSTALL_DIR = '/agw-install';
/** Where our image carries the bridge. The init container runs it as `--install <path>`: it copies
 * itself into the emptyDir (the image is distroless: no shell, no cp), written under a temporary
 * name and renamed, so a half-copied file never runs (image/bridge/install.go). */
const IMAGE_BRIDGE = '/usr/local/bin/agw-bridge';

/** The port the proxy sidecar of an HTTP server listens on (the server keeps `run.port`). */
export function proxyPort(plan: Pick<RunPlan, 'port'>): number {
  return plan.port === 18080 ? 18081 : 18080;
}

/** The pod port the Service and the NetworkPolicy let the gateways reach: the bridge's. */
function bridgePort(plan: RunPlan): number {
  return plan.transport === 'stdio' ? plan.port : proxyPort(plan);
}

export interface RenderedWorkload {
  readonly deployment: Record<string, unknown>;
  readonly service: Record<string, unknown>;
  readonly networkPolicy: Record<string, unknown>;
  /** First 16 hex characters of the SHA-256 of all three (before the annotation is added). */
  readonly hash: string;
}

export function workloadLabels(plan: Pick<RunPlan, 'source' | 'workspace'>): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [SOURCE_LABEL]: plan.source,
    [SOURCE_WORKSPACE_LABEL]: plan.workspace,
  };
}

export function ownerReferences(plan: Pick<RunPlan, 'source' | 'ownerUid'>): Record<string, unknown>[] {
  return plan.ownerUid === undefined
    ? []
    : [
        {
          apiVersion: 'agentgateway.dev/v1alpha1',
          kind: 'McpSource',
          name: plan.source,
          uid: plan.ownerUid,
          controller: true,
        },
      ];
}

function metadata(plan: RunPlan, name: string): Record<string, unknown> {
  const owners = ownerReferences(plan);
  return {
    name,
    namespace: plan.namespace,
    labels: workloadLabels(plan),
    ...(owners.length === 0 ? {} : { ownerReferences: owners }),
  };
}

const CONTAINER_SECURITY = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  runAsUser: UID,
  runAsGroup: UID,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

export function renderWorkload(plan: RunPlan): RenderedWorkload {
  const name = workloadName(plan.source);
  const selector = { [SOURCE_LABEL]: plan.source, [MANAGED_BY_LABEL]: MANAGED_BY_VALUE };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(plan, name),
    spec: {
      replicas: plan.scaleToZero?.asleep === true ? 0 : plan.replicas,
      selector: { matchLabels: selector },
      template: { metadata: { labels: workloadLabels(plan) }, spec: podSpec(plan) },
    },
  };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(plan, name),
    spec: {
      type: 'ClusterIP',
      selector,
      ports: [{ name: 'mcp', port: plan.port, targetPort: 'mcp', protocol: 'TCP' }],
    },
  };
  const networkPolicy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: metadata(plan, name),
    spec: {
      podSelector: { matchLabels: selector },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: {
                matchLabels: { 'kubernetes.io/metadata.name': plan.settings.gatewayNamespace },
              },
              podSelector: { matchLabels: { ...plan.settings.gatewayPodLabels } },
            },
          ],
          ports: [{ protocol: 'TCP', port: bridgePort(plan) }],
        },
      ],
      egress: [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
        ...plan.egress.map((rule) => ({
          to: [{ ipBlock: { cidr: rule.cidr } }],
          ports: rule.ports.map((p) => ({ protocol: p.protocol, port: p.port })),
        })),
      ],
    },
  };
  const hash = createHash('sha256')
    .update(JSON.stringify([deployment, service, networkPolicy]))
    .digest('hex')
    .slice(0, 16);
  return {
    deployment: {
      ...deployment,
      metadata: { ...deployment.metadata, annotations: { [WORKLOAD_HASH_ANNOTATION]: hash } },
    },
    service,
    networkPolicy,
    hash,
  };
}

function podSpec(plan: RunPlan): Record<string, unknown> {
  const stdio = plan.transport === 'stdio';
  const probe = stdio ? { httpGet: { path: '/healthz', port: 'mcp' } } : { tcpSocket: { port: 'server' } };
  const command = stdio
    ? [
        `${BRIDGE_DIR}/bridge`,
        '--port',
        String(plan.port),
        '--token-file',
        `${TOKEN_DIR}/${TOKEN_KEY}`,
        '--',
        ...(plan.command ?? []),
        ...plan.args,
      ]
    : plan.command;
  const server = {
    name: 'server',
    image: plan.image,
    imagePullPolicy: 'IfNotPresent',
    ...(command === undefined ? {} : { command: [...command] }),
    ...(!stdio && plan.args.length > 0 ? { args: [...plan.args] } : {}),
    ...(plan.env.length === 0
      ? {}
      : {
          env: plan.env.map((v) =>
            v.secretKeyRef === undefined
              ? { name: v.name, value: v.value ?? '' }
              : {
                  name: v.name,
                  valueFrom: { secretKeyRef: { name: v.secretKeyRef.name, key: v.secretKeyRef.key } },
                },
          ),
        }),
    ports: [{ name: stdio ? 'mcp' : 'server', containerPort: plan.port, protocol: 'TCP' }],
    readinessProbe: { ...probe, periodSeconds: 5, failureThreshold: 3 },
    livenessProbe: { ...probe, initialDelaySeconds: 10, periodSeconds: 20, failureThreshold: 3 },
    resources: { requests: { ...plan.requests }, limits: { ...plan.limits } },
    securityContext: CONTAINER_SECURITY,
    volumeMounts: [
      { name: 'tmp', mountPath: '/tmp' },
      ...(stdio
        ? [
            { name: 'bridge', mountPath: BRIDGE_DIR, readOnly: true },
            { name: 'token', mountPath: TOKEN_DIR, readOnly: true },
          ]
        : []),
      ...(plan.writableVolume === undefined
        ? []
        : [{ name: 'writable', mountPath: plan.writableVolume.mountPath }]),
    ],
  };
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: UID,
      runAsGroup: UID,
      fsGroup: UID,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    ...(stdio
      ? {
          initContainers: [
            {
              name: 'bridge',
              image: plan.settings.bridgeImage,
              imagePullPolicy: 'IfNotPresent',
              command: [IMAGE_BRIDGE, '--install', `${INSTALL_DIR}/bridge`],
              resources: {
                requests: { cpu: '10m', memory: '32Mi' },
                limits: { cpu: '100m', memory: '64Mi' },
              },
              securityContext: CONTAINER_SECURITY,
              volumeMounts: [{ name: 'bridge', mountPath: INSTALL_DIR }],
            },
          ],
        }
      : {}),
    containers: stdio ? [server] : [server, proxySidecar(plan)],
    volumes: [
      { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
      ...(stdio ? [{ name: 'bridge', emptyDir: { sizeLimit: '64Mi' } }] : []),
      {
        name: 'token',
        secret: {
          secretName: tokenSecretName(plan.source),
          defaultMode: 0o440,
          items: [{ key: TOKEN_KEY, path: TOKEN_KEY }],
        },
      },
      ...(plan.writableVolume === undefined
        ? []
        : [{ name: 'writable', emptyDir: { sizeLimit: plan.writableVolume.sizeLimit } }]),
    ],
  };
}

/** The bridge in proxy mode beside an image that serves HTTP itself: it owns the port the Service
 * targets, checks the gateways' token, takes it off and passes the request to the server on the
 * pod's loopback (image/bridge/proxy.go). */
function proxySidecar(plan: RunPlan): Record<string, unknown> {
  const port = proxyPort(plan);
  return {
    name: 'bridge',
    image: plan.settings.bridgeImage,
    imagePullPolicy: 'IfNotPresent',
    command: [
      IMAGE_BRIDGE,
      '--port',
      String(port),
      '--token-file',
      `${TOKEN_DIR}/${TOKEN_KEY}`,
      '--upstream',
      `http://127.0.0.1:${plan.port}`,
    ],
    ports: [{ name: 'mcp', containerPort: port, protocol: 'TCP' }],
    readinessProbe: { httpGet: { path: '/readyz', port: 'mcp' }, periodSeconds: 5, failureThreshold: 3 },
    livenessProbe: { tcpSocket: { port: 'mcp' }, initialDelaySeconds: 10, periodSeconds: 20 },
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
    securityContext: CONTAINER_SECURITY,
    volumeMounts: [{ name: 'token', mountPath: TOKEN_DIR, readOnly: true }],
  };
}
