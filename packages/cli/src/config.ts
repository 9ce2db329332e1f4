import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

/** What `marketplace auth login` stores: the token and the base URL it was checked against. */
export interface Config {
  token?: string;
  base_url?: string;
}

/**
 * `$XDG_CONFIG_HOME/marketplace/config.json` (`~/.config/marketplace/config.json` without it). A
 * relative `XDG_CONFIG_HOME` is ignored, as the XDG Base Directory spec says: it would put the
 * token wherever the command happens to run.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config');
  return join(base, 'marketplace', 'config.json');
}

/** Permission bits that let the group or others in. */
const LOOSE = 0o077;

/**
 * The stored login (`{}` when there is none). `onLoose` hears the file's mode when it holds a token
 * and the group or others may read or write it (a file made by hand, or by an older version).
 */
export async function readConfig(path: string, onLoose?: (mode: number) => void): Promise<Config> {
  let config: Config;
  let mode: number;
  try {
    const handle = await open(path, 'r');
    try {
      mode = (await handle.stat()).mode & 0o777;
      const parsed: unknown = JSON.parse(await handle.readFile('utf8'));
      config = typeof parsed === 'object' && parsed !== null ? (parsed as Config) : {};
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (config.token && mode & LOOSE) onLoose?.(mode);
  return config;
}

/**
 * Writes the file readable by its owner only, in a directory only its owner may enter (0700, also
 * when it existed looser). The token is never written into a file with a looser mode: a new file is
 * created with mode 0600 (`O_EXCL`, so never an existing one) next to the old, then renamed over it.
 */
export async function writeConfig(path: string, config: Config): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await stat(dir)).mode & LOOSE) await chmod(dir, 0o700);
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(`${JSON.stringify(config, null, 2)}\n`);
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
