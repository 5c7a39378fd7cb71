// Pieces shared by the four custom resources of agentgateway.dev/v1alpha1: references (same
// namespace only), Secret key references, and the status conditions of Kubernetes API conventions.
import { z } from 'zod';

export const GROUP = 'agentgateway.dev';
export const VERSION = 'v1alpha1';
export const CATEGORY = 'agentgateway';

/** A Kubernetes object name (DNS subdomain), bounded for CEL cost estimates. */
const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);

export const WorkspaceRefSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(40)
      .regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/)
      .describe('Name of a Workspace in this namespace.'),
  })
  .describe('The Workspace this resource belongs to (same namespace). Immutable.');

export const SecretKeyRefSchema = z
  .strictObject({
    name: objectName.describe('Name of a Secret in this namespace.'),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/)
      .describe('Key of the value inside the Secret.'),
  })
  .describe('A value in a Secret of this namespace; the value itself never appears in the resource.');

export const ConditionSchema = z
  .strictObject({
    type: z.string().min(1).max(316).describe('Condition type; Ready summarises the resource.'),
    status: z.enum(['True', 'False', 'Unknown']).describe('Whether the condition holds.'),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The metadata.generation this condition was computed for.'),
    lastTransitionTime: z.string().max(64).describe('When the status last changed (RFC 3339).'),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe('CamelCase reason, stable for automation (e.g. SecretNotFound, InvalidSpec).'),
    message: z
      .string()
      .max(32_768)
      .describe('Human-readable detail naming the field at fault; never a secret.'),
  })
  .describe('One observation of the resource state (Kubernetes API conventions).');

export const ConditionsSchema = z
  .array(ConditionSchema)
  .max(8)
  .describe('Conditions; Ready is True when the resource is served by the gateways.');

export const ObservedGenerationSchema = z
  .number()
  .int()
  .min(0)
  .describe('The metadata.generation the operator last reconciled.');
