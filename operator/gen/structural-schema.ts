// Turns the JSON Schema zod emits (OpenAPI 3.0 flavour, input side) into a Kubernetes structural
// schema, and checks the conventions every field must meet (docs/kubernetes.md §4): a description
// for `kubectl explain`, a bound on every string and list (CEL cost estimates need them). CEL rules
// and list-map markers are attached by dotted path.
import type { CelRule } from '../api/v1alpha1/index.js';

export type JsonSchema = Record<string, unknown>;

export interface StructuralOptions {
  readonly rules: Readonly<Record<string, readonly CelRule[]>>;
  /** Dotted paths of lists keyed by `type` (status conditions). */
  readonly listMaps: readonly string[];
}

const DROPPED = new Set(['$schema', 'propertyNames', 'id', '$id']);

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Converts `node` (at dotted `path`) in place of a copy; pushes convention problems. */
export function structural(
  node: JsonSchema,
  path: string,
  options: StructuralOptions,
  problems: string[],
  isProperty = true,
): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === 'additionalProperties') {
      if (value === false) continue;
      if (isRecord(value)) {
        out[key] = structural(value, `${path}.*`, options, problems, false);
        continue;
      }
    }
    if (key === 'properties' && isRecord(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          structural(child as JsonSchema, path === '' ? name : `${path}.${name}`, options, problems),
        ]),
      );
      continue;
    }
    if (key === 'items' && isRecord(value)) {
      out[key] = structural(value, `${path}[]`, options, problems, false);
      continue;
    }
    if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      problems.push(`${path}: ${key} is not structural; model the union as one object with CEL rules`);
      continue;
    }
    out[key] = value;
  }
  if (out['type'] === 'object' && isRecord(out['additionalProperties']) && out['maxProperties'] === undefined)
    out['maxProperties'] = 200;
  if (isProperty && path !== '' && path !== 'metadata' && typeof out['description'] !== 'string')
    problems.push(`${path}: has no description (kubectl explain shows it)`);
  if (out['type'] === 'string' && out['maxLength'] === undefined && out['enum'] === undefined)
    problems.push(`${path}: string without maxLength or enum`);
  if (out['type'] === 'array' && out['maxItems'] === undefined)
    problems.push(`${path}: list without maxItems`);
  const rules = options.rules[path];
  if (rules !== undefined && rules.length > 0)
    out['x-kubernetes-validations'] = rules.map((rule) => ({ ...rule }));
  if (options.listMaps.includes(path)) {
    out['x-kubernetes-list-type'] = 'map';
    out['x-kubernetes-list-map-keys'] = ['type'];
  }
  return out;
}
