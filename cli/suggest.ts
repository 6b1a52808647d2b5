/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The closest of `choices` to what was typed, when it is near enough to be a typo (or a prefix of it); else null. */
export function closest(typed: string, choices: readonly string[]): string | null {
  let best: { choice: string; distance: number } | null = null;
  for (const choice of choices) {
    const distance = choice.startsWith(typed) && typed.length >= 3 ? 1 : editDistance(typed, choice);
    if (distance <= Math.max(2, Math.floor(choice.length / 3)) && (!best || distance < best.distance))
      best = { choice, distance };
  }
  return best?.choice ?? null;
}
