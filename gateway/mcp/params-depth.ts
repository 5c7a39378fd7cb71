// Bounds how deeply a request's params may nest (issue 28.4, D23). A caller who sends arguments
// 5,000 levels deep must be told so as a request error before any upstream is contacted; passed on,
// the upstream's parser fails and the failure would count against the source's health.
export { nestsDeeperThan } from '../platform/nesting-depth.js';

/** Levels of nesting allowed inside `params` (objects and arrays; `params` itself is level 1). */
export const MAX_PARAMS_DEPTH = 64;
