import { Bitset } from './bitset.js';
import { PackedStringList, PackedStrings, type Block, type StringList } from './packed-strings.js';
import type { PreparedParts } from './prepared-parts.js';
import type { NumericName, RangeSuffixes, SearchIndexData } from './search-index.js';
import { drain, type Steps } from './sliced-work.js';
import { TermPostings, type TermRuns } from './term-postings.js';
import { PackedTrigrams, TextIndex } from './text-index.js';

/**
 * The index as a JSON skeleton and binary sections (index-files.ts writes and
 * opens them): every typed array, bit array and packed string buffer is a
 * section, referenced from the skeleton by number; what stays in JSON is small
 * (dictionaries, keys of the audience maps, sizes). Opened, a section is a view
 * over the file's bytes: nothing per creator is parsed or copied.
 */
export type Skeleton = null | boolean | number | string | Skeleton[] | { [key: string]: Skeleton };

const TYPED = {
  Int8Array,
  Uint8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
} as const;
type TypedName = keyof typeof TYPED;
type Typed = InstanceType<(typeof TYPED)[TypedName]>;

/** Where encoded sections go: an array, or a writer that writes them out as they come (index-files.ts). */
export interface SectionList {
  push(section: Uint8Array): number;
  readonly length: number;
}

/**
 * What the files hold: the base data, the range suffix sets and what a reader would otherwise build after the
 * open (the handle table, the lookalike vectors: absent only in files written without them).
 */
export interface IndexParts {
  data: SearchIndexData;
  suffixes: ReadonlyMap<NumericName, RangeSuffixes>;
  prepared?: PreparedParts;
}

/** Encodes `parts` as a skeleton, appending each binary part to `sections`. */
export function encodeParts(parts: IndexParts, sections: SectionList): Skeleton {
  return encodePart({ data: parts.data, suffixes: parts.suffixes, prepared: parts.prepared }, sections);
}

/**
 * Encodes one part of the index (any value `encodeParts` encodes within the
 * whole): a build that writes its files part by part puts the parts'
 * skeletons together into the one `encodeParts` would give.
 */
export function encodePart(value: unknown, sections: SectionList): Skeleton {
  return encode(value, sections);
}

/** The parts again, each section a view over `sections` (the file's bytes). */
export function decodeParts(skeleton: Skeleton, sections: readonly Uint8Array<ArrayBuffer>[]): IndexParts {
  return drain(decodeSteps(skeleton, sections)) as IndexParts;
}

/**
 * As `decodeParts`, in steps that yield between pieces of work (sliced-work.ts): a reader opening files beside
 * requests decodes them a few milliseconds at a time (the vocabularies' strings are most of the work).
 */
export function decodePartSteps(skeleton: Skeleton, sections: readonly Uint8Array<ArrayBuffer>[]): Steps<IndexParts> {
  return decodeSteps(skeleton, sections) as Steps<IndexParts>;
}

function section(sections: SectionList, view: ArrayBufferView): number {
  sections.push(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  return sections.length - 1;
}

function encodeStrings(list: StringList | readonly string[], sections: SectionList): Skeleton {
  const packed =
    list instanceof PackedStringList
      ? list
      : PackedStringList.of(
          Array.isArray(list) ? list : Array.from({ length: list.length }, (_, i) => (list as StringList).get(i)),
        );
  return { $: 'strings', bytes: section(sections, packed.bytes), offsets: section(sections, packed.offsets) };
}

function encode(value: unknown, sections: SectionList): Skeleton {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`a number the skeleton cannot hold: ${value}`);
    return value;
  }
  if (ArrayBuffer.isView(value)) {
    const name = value.constructor.name as TypedName;
    if (!(name in TYPED)) throw new Error(`an array the index files cannot hold: ${name}`);
    return { $: 'typed', type: name, s: section(sections, value) };
  }
  if (value instanceof Bitset) return { $: 'bits', size: value.size, s: section(sections, value.words) };
  if (value instanceof Map)
    return { $: 'map', entries: [...value].map(([k, v]) => [encode(k, sections), encode(v, sections)]) };
  if (value instanceof PackedStrings) {
    const { blocks, length } = value.parts;
    return {
      $: 'packed',
      length,
      blocks: blocks.map((b) => ({
        bytes: section(sections, b.bytes),
        offsets: section(sections, b.offsets),
        nulls: b.nulls ? section(sections, b.nulls) : null,
      })),
    };
  }
  if (value instanceof TermPostings) {
    return {
      $: 'terms',
      size: value.size,
      terms: encodeStrings(value.terms, sections),
      offsets: encode(value.offsets, sections),
      postings: encode(value.postings, sections),
      counts: encode(value.counts, sections),
      frequent: encode(value.frequent, sections),
      runs: encode(value.runs, sections),
    };
  }
  if (value instanceof TextIndex) {
    const trigrams = PackedTrigrams.of(value.trigrams as PackedTrigrams | ReadonlyMap<string, Int32Array>);
    return {
      $: 'text',
      size: value.size,
      tokens: encodeStrings(value.tokens, sections),
      offsets: encode(value.offsets, sections),
      postings: encode(value.postings, sections),
      trigrams: [trigrams.keys, trigrams.offsets, trigrams.ids, trigrams.counts].map((a) => encode(a, sections)),
    };
  }
  if (Array.isArray(value)) return value.map((v) => encode(v, sections));
  if (Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, Skeleton> = {};
    for (const [k, v] of Object.entries(value as object)) if (v !== undefined) out[k] = encode(v, sections);
    if ('$' in out) throw new Error('a plain object keyed "$" cannot be told from a tagged one');
    return out;
  }
  throw new Error(`a value the index files cannot hold: ${String((value as object).constructor?.name)}`);
}

function typed(sections: readonly Uint8Array<ArrayBuffer>[], s: number, type: TypedName): Typed {
  const bytes = sections[s];
  if (!bytes) throw new Error(`the skeleton names section ${s}, which the file does not hold`);
  const Type = TYPED[type];
  if (!Type || bytes.byteOffset % Type.BYTES_PER_ELEMENT !== 0 || bytes.byteLength % Type.BYTES_PER_ELEMENT !== 0)
    throw new Error(`section ${s} cannot be read as ${type}`);
  return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
}

function decodeStrings(node: Record<string, Skeleton>, sections: readonly Uint8Array<ArrayBuffer>[]): PackedStringList {
  return new PackedStringList(
    typed(sections, node.bytes as number, 'Uint8Array') as Uint8Array,
    typed(sections, node.offsets as number, 'Int32Array') as Int32Array,
  );
}

/**
 * The strings of each vocabulary decoded, by the section view of its bytes: an open that takes those sections
 * from the index opened before (the same view objects, index-files.ts) takes its strings too instead of making
 * them again (452,000 at 1M).
 */
const vocabularies = new WeakMap<Uint8Array, { offsets: Uint8Array; terms: string[] }>();

function* vocabulary(node: Record<string, Skeleton>, sections: readonly Uint8Array<ArrayBuffer>[]): Steps<string[]> {
  const bytes = sections[node.bytes as number];
  const offsets = sections[node.offsets as number];
  const known = bytes && vocabularies.get(bytes);
  if (known && known.offsets === offsets) return known.terms;
  const terms = yield* decodeStrings(node, sections).toArraySteps();
  if (bytes && offsets) vocabularies.set(bytes, { offsets, terms });
  return terms;
}

function* decodeSteps(node: Skeleton, sections: readonly Uint8Array<ArrayBuffer>[]): Steps<unknown> {
  if (node === null || typeof node !== 'object') return node;
  const d = (n: Skeleton | undefined): Steps<unknown> => decodeSteps(n ?? null, sections);
  if (Array.isArray(node)) {
    const out: unknown[] = [];
    for (const n of node) out.push(yield* d(n));
    return out;
  }
  switch (node.$) {
    case undefined: {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) out[k] = yield* d(v);
      return out;
    }
    case 'typed':
      // a step per section: a slice ends between any two of the file's thousands of sections
      yield;
      return typed(sections, node.s as number, node.type as TypedName);
    case 'bits':
      yield;
      return new Bitset(node.size as number, typed(sections, node.s as number, 'Uint32Array') as Uint32Array);
    case 'map': {
      const out = new Map<unknown, unknown>();
      for (const [k, v] of node.entries as Skeleton[][]) out.set(yield* d(k), yield* d(v));
      return out;
    }
    case 'packed': {
      yield;
      const blocks = (node.blocks as Array<Record<string, Skeleton>>).map((b): Block => {
        const bytes = typed(sections, b.bytes as number, 'Uint8Array');
        const block: Block = {
          bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          offsets: typed(sections, b.offsets as number, 'Int32Array') as Int32Array,
        };
        if (b.nulls !== null) block.nulls = typed(sections, b.nulls as number, 'Uint8Array') as Uint8Array;
        return block;
      });
      return PackedStrings.of(blocks, node.length as number);
    }
    case 'terms':
      return new TermPostings(
        node.size as number,
        // a vocabulary, searched by binary search and prefix: heap strings, one per distinct term (not per creator)
        yield* vocabulary(node.terms as Record<string, Skeleton>, sections),
        (yield* d(node.offsets)) as Uint32Array,
        (yield* d(node.postings)) as Uint8Array,
        (yield* d(node.counts)) as Int32Array,
        (yield* d(node.frequent)) as Map<number, Bitset>,
        (yield* d(node.runs)) as TermRuns,
      );
    case 'text': {
      const [keys, offsets, ids, counts] = (yield* d(node.trigrams)) as unknown[];
      return new TextIndex(
        node.size as number,
        decodeStrings(node.tokens as Record<string, Skeleton>, sections),
        (yield* d(node.offsets)) as Uint32Array,
        (yield* d(node.postings)) as Uint8Array,
        new PackedTrigrams(keys as Float64Array, offsets as Uint32Array, ids as Uint8Array, counts as Int32Array),
      );
    }
    default:
      throw new Error(`an unknown part in the index files: ${String(node.$)}`);
  }
}
