/** Wire form of a timestamp: ISO 8601 UTC with milliseconds and `Z`. */
export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

/** The JSON address of a resource: base URL + path + `.json` (decisions.md §1). */
export const resourceUrl = (baseUrl: string, path: string): string => `${baseUrl}${path}.json`;
