import { expect, it } from 'vitest';
import { statementProgress } from '../../../pipelines/engine/load-batch.js';
import { render } from '../../../cli/progress.js';

it("a merge step shows the statement's percentage beside the file's rows, never the rows of the tables it joins", () => {
  const update = statementProgress('merging posts', 4, 20.7);
  expect(update).toEqual({ step: 'merging posts (4 rows), statement at', done: 20, total: null, unit: '%' });
  expect(render(update!, 3, 1)).toBe('merging posts (4 rows), statement at 20 %  1s in this step, 3.0s in all');
  expect(statementProgress('merging posts', 4, -1)).toBeNull();
  expect(statementProgress('merging posts', null, 140)?.done).toBe(100);
});
