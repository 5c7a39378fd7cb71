// Where the operator's Kubernetes credentials come from (a gateway uses kube-client-config.ts): a kubeconfig file when given (out-of-cluster
// runs and tests), else client-node's default chain (KUBECONFIG, ~/.kube/config, in-cluster service
// account).
import { KubeConfig } from '@kubernetes/client-node';

export function loadKubeConfig(kubeconfigPath?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (kubeconfigPath === undefined) kubeConfig.loadFromDefault();
  else kubeConfig.loadFromFile(kubeconfigPath);
  return kubeConfig;
}
