// Which operations of a document become tools (issue 44): an operation passes when it matches every
// list the admin gave (tags: any of its tags; methods: case-insensitive; paths: globs over the path
// as the document writes it; operationIds: exact). Filtered-out operations are simply not tools:
// they are not "skipped", which is for operations that could not become one.

import type { OperationFilter } from './openapi-tool.js';

export interface FilteredOperation {
  readonly method: string;
  readonly path: string;
  readonly tags: readonly string[];
  readonly operationId?: string | undefined;
}

export function operationPredicate(
  filter: OperationFilter | undefined,
): (operation: FilteredOperation) => boolean {
  const tags = filter?.tags === undefined ? undefined : new Set(filter.tags);
  const methods =
    filter?.methods === undefined ? undefined : new Set(filter.methods.map((m) => m.toLowerCase()));
  const paths = filter?.paths?.map(pathGlob);
  const ids = filter?.operationIds === undefined ? undefined : new Set(filter.operationIds);
  return (operation) =>
    (tags === undefined || operation.tags.some((tag) => tags.has(tag))) &&
    (methods === undefined || methods.has(operation.method.toLowerCase())) &&
    (paths === undefined || paths.some((glob) => glob.test(operation.path))) &&
    (ids === undefined || (operation.operationId !== undefined && ids.has(operation.operationId)));
}

/**
 * A path glob as a regular expression: `*` matches within one segment, `**` across segments, and
 * `/**` also matches nothing (`/pets/**` matches `/pets`, `/pets/{id}` and `/pets/{id}/toys`).
 */
export function pathGlob(glob: string): RegExp {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('/**', i)) {
      pattern += '(?:/.*)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      pattern += '.*';
      i += 1;
    } else if (glob[i] === '*') pattern += '[^/]*';
    else pattern += (glob[i] ?? '').replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`, 'u');
}
