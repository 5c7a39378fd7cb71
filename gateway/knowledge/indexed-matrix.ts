// A vector matrix paired with the IVF index built over it (issue 22): the index's lists are runs of
// rows of the matrix copied in list order, so the two are only valid together. Kept apart from both
// so each imports one way: the matrix searches through an index, the index reads any matrix.
import { IvfIndex } from './ivf-index.js';
import { VectorMatrix } from './vector-matrix.js';

/** A matrix in list order and the index over it: only valid together. */
export interface IndexedMatrix {
  readonly matrix: VectorMatrix;
  readonly index: IvfIndex;
}

/** Builds the index over `matrix` and a copy of the matrix in list order, yielding every millisecond
 * or so; undefined when no index can be built (an empty matrix, or more rows than the sampler orders). */
export function* indexMatrix(matrix: VectorMatrix): Generator<void, IndexedMatrix | undefined> {
  const built = yield* IvfIndex.build(matrix);
  if (built === undefined) return undefined;
  return { matrix: yield* VectorMatrix.reordered(matrix, built.members), index: built.index };
}
