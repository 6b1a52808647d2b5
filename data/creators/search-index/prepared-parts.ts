import { HandleTable } from './handle-table.js';
import {
  adoptLookalikeModel,
  adoptLookalikeModelLater,
  type LookalikeSource,
  lookalikeModelSteps,
  prepareLookalikeModel,
  type StoredLookalikeModel,
  storedLookalikeModel,
} from './lookalike-model.js';
import type { PackedStrings } from './packed-strings.js';
import type { SearchIndexData } from './search-index.js';
import { runSliced } from './sliced-work.js';

/**
 * What a reader opens ready-made with an index instead of building it after the open (docs/search.md, "The index
 * as files", format 5): the handle table's slots (handle-table.ts) and the lookalike vectors (lookalike-model.ts).
 */
export interface PreparedParts {
  handles: Int32Array;
  lookalikes: StoredLookalikeModel;
}

/** A build's work per turn of the event loop when a writer builds these beside other work. */
const SLICE_MS = 20;

/** The prepared parts of an index's base data (built in slices beside requests where they are not yet). */
export async function preparedPartsOf(data: SearchIndexData): Promise<PreparedParts> {
  const table = await HandleTable.prepare(data.handles);
  const model = await prepareLookalikeModel(data);
  return { handles: table.stored, lookalikes: storedLookalikeModel(model) };
}

/** The handle table's slots, built from the handles a writer holds (no index in memory). */
export async function handleSlotsOf(handles: PackedStrings): Promise<Int32Array> {
  return (await runSliced(HandleTable.build(handles), SLICE_MS))!.stored;
}

/** The lookalike vectors, built from the parts a writer holds (no index in memory). */
export async function storedLookalikesOf(source: LookalikeSource): Promise<StoredLookalikeModel> {
  return storedLookalikeModel((await runSliced(lookalikeModelSteps(source), SLICE_MS))!);
}

/** Takes the parts an index's files hold as the index's own; throws when they do not fit its data. */
export function adoptPreparedParts(data: SearchIndexData, parts: PreparedParts): void {
  HandleTable.adopt(data.handles, parts.handles);
  adoptLookalikeModel(data, parts.lookalikes);
}

/**
 * As `adoptPreparedParts`, with the lookalike vectors taken once `checked` answers null (their sections' check
 * passed); on a refusal they are built from the data when first wanted. Answers when that is settled.
 */
export function adoptPreparedPartsLater(
  data: SearchIndexData,
  parts: PreparedParts,
  checked: Promise<string | null>,
): Promise<void> {
  HandleTable.adopt(data.handles, parts.handles);
  return adoptLookalikeModelLater(
    data,
    checked.then((refused) => (refused === null ? parts.lookalikes : null)),
  );
}
