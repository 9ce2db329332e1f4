/**
 * The oldest Node.js the server and its test kit run on (decisions §6): MikroORM 7 needs 22.17,
 * and undici, which the website prefill uses, fails to load on Node 20 (`reading 'bind'`). This
 * module imports nothing, so that it can run before anything that would crash on an older Node.
 */
export const REQUIRED_NODE = '22.17.0';

/** The one line to print when `actual` is older than `required`; undefined when it is not. */
export function nodeTooOld(
  program: string,
  required: string = REQUIRED_NODE,
  actual: string = process.versions.node,
): string | undefined {
  const parse = (version: string) => version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const have = parse(actual);
  const need = parse(required);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) return `${program} needs Node.js ${required} or newer; this is Node.js ${actual}`;
  }
  return undefined;
}
