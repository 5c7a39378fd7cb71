// Vitest global setup: one real kube-apiserver + etcd for the whole run (control-plane.ts), with the
// CRDs installed. Test files reach it through inject('kubeconfig') (test/support/kube-harness.ts)
// and isolate themselves by namespace. Stopped when the run ends.
import type { TestProject } from 'vitest/node';
import { startControlPlane } from './control-plane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    kubeBin: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const plane = await startControlPlane();
  project.provide('kubeconfig', plane.kubeconfig);
  project.provide('kubeBin', plane.bin);
  return () => plane.stop();
}
