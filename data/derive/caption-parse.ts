/**
 * How hashtags, mentions and words are read from a caption: one SQL expression
 * each, used by the loader (a post's hashtags and mentions, parsed once when it
 * is stored), the demo seed, and the derivation of a creator's caption words,
 * so the three can never disagree. `col` is an SQL expression (a column name),
 * never user input. A caption without `#` (or `@`) skips the regular expression.
 *
 * - A hashtag is `#` followed by letters, digits and `_` (Unicode), at the start
 *   or after a character that is none of those (`a#b` and `&#39;` are not tags).
 *   Stored lower case, without the `#`, each once per post, sorted; `[]` without a caption.
 * - A mention is `@` followed by a handle's characters (`a-z`, `0-9`, `.`, `_`,
 *   `-`; lower-cased first), not ending in `.` or `-` (`thanks @ironpeak.` names
 *   `ironpeak`), at the start or after a character that cannot be in a handle or
 *   an e-mail address's local part (`me@mail.com` is no mention). Stored without
 *   the `@`, each once per post, sorted.
 * - A word is a run of Unicode letters, digits and `_` of the lower-cased caption.
 */
export function hashtagsSql(col: string): string {
  return `CASE WHEN contains(${col}, '#')
    THEN list_sort(list_distinct(regexp_extract_all(lower(${col}), '(?:^|[^\\p{L}\\p{N}_&#])#([\\p{L}\\p{N}_]+)', 1))) ELSE [] END`;
}

export function mentionsSql(col: string): string {
  return `CASE WHEN contains(${col}, '@')
    THEN list_sort(list_distinct(regexp_extract_all(lower(${col}), '(?:^|[^\\p{L}\\p{N}_.@-])@([a-z0-9_](?:[a-z0-9._-]*[a-z0-9_])?)', 1))) ELSE [] END`;
}

export function captionWordsSql(col: string): string {
  return `regexp_extract_all(lower(${col}), '[\\p{L}\\p{N}_]+')`;
}

/**
 * The distinct words of a text, sorted: the same words as `captionWordsSql`, found by
 * turning every run of other characters into one blank and splitting on blanks (a
 * replace is cheaper than collecting each match), for a creator's captions joined.
 */
export function captionWordSetSql(col: string): string {
  return `list_sort(list_filter(list_distinct(string_split(regexp_replace(lower(${col}), '[^\\p{L}\\p{N}_]+', ' ', 'g'), ' ')), w -> w <> ''))`;
}

/**
 * A post's hashtags or mentions as stored, or, for a post a load committed before
 * parsing its caption (NULL until the derivation that follows the load commits:
 * pipelines/engine/merge-children.ts), the same parse of its caption: a reader in
 * between sees what the derivation will store. `prefix` is a table alias and dot, or ''.
 */
export function postTagsSql(kind: 'hashtags' | 'mentions', prefix = ''): string {
  const parse = kind === 'hashtags' ? hashtagsSql(`${prefix}caption`) : mentionsSql(`${prefix}caption`);
  return `coalesce(${prefix}${kind}, ${parse})`;
}
