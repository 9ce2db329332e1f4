/** An environment variable, or `undefined` where there is no `process` (browsers) or it is empty. */
export function readEnv(name: string): string | undefined {
  const value = globalThis.process?.env?.[name]?.trim();
  return value === '' ? undefined : value;
}
