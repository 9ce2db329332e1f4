import type { TestHelperHandlers } from '../../http/route.js';
import { resetSandbox } from './reset.js';

/** Test-helper handlers that act on the whole sandbox (decisions.md §4). */
export const sandboxTestHelpers = {
  reset: ({ em, uploads }) => resetSandbox(em, uploads),
} satisfies Partial<TestHelperHandlers>;
