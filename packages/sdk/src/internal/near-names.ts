/** Edits between two words (insert, delete, replace one character): Levenshtein's distance. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length] as number;
}

/** A name's words in snake case, whatever its case and separators: `orgId`, `org-id`, `ORG_ID` → `org_id`. */
const snakeWords = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[-\s]+/g, '_');

/** `org_id` of `organization_id`: as many words (two or more), each the start of the other's. */
function abbreviates(word: string, name: string): boolean {
  const short = word.split('_');
  const long = name.split('_');
  return (
    short.length > 1 &&
    short.length === long.length &&
    short.every((part, i) => part.length >= 2 && (long[i] as string).startsWith(part))
  );
}

/**
 * `account_url` of `url`, `banner_image` of `image`: the last words of the name, 3 characters or
 * more (a model or a user drops a name's first word; `id` ends too many names to mean one).
 */
const endsWith = (name: string, words: string): boolean => words.length >= 3 && name.endsWith(`_${words}`);

/**
 * The known names a mistyped one may have meant, nearest first: at most 2 edits away (1 for a
 * short name), a name it starts (3 characters or more), a name it ends by whole words (`url`:
 * `account_url`), the same words in another case or with
 * other separators (`bannerImage`: `banner_image`), or their abbreviation (`org_id`, `orgId`:
 * `organization_id`). None when nothing is near.
 */
export function nearNames(word: string, known: Iterable<string>): string[] {
  const words = snakeWords(word);
  return [...known]
    .map((name) => {
      const same = snakeWords(name) === words;
      return { name, same, d: same ? 0 : editDistance(word, name) };
    })
    .filter(
      ({ name, same, d }) =>
        same ||
        d <= Math.min(2, Math.max(1, name.length - 2)) ||
        (word.length >= 3 && name.startsWith(word)) ||
        endsWith(snakeWords(name), words) ||
        abbreviates(words, snakeWords(name)),
    )
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .map(({ name }) => name);
}
