/** Tokens and base URLs: where they come from, the stored login, and `marketplace auth`. */
import { parseArgs } from 'node:util';
import { ClientOptionError, type Fetch, Marketplace } from '@app/sdk';
import type { SettingSources } from '@app/sdk/operations';
import {
  didYouMean,
  EXIT_API,
  EXIT_OK,
  EXIT_USAGE,
  globalOptions,
  optionError,
  UsageError,
} from './arguments.js';
import { type Config, configPath, readConfig, writeConfig } from './config.js';
import { type IO, reportError, type Waited } from './output.js';

const PROCESS_LIST_WARNING =
  'marketplace: warning: --token puts the token in the process list (ps), where other users of this machine can read it; use --token-stdin or MARKETPLACE_TOKEN\n';

/**
 * A token given for this call: `--token-stdin` (stdin, or a hidden prompt in a terminal), `--token`
 * (with a warning), or undefined.
 */
async function tokenForThisCall(values: Record<string, unknown>, io: IO): Promise<string | undefined> {
  const flagged = typeof values.token === 'string' && values.token !== '';
  if (values['token-stdin']) {
    if (flagged) throw new UsageError('give --token-stdin or --token, not both');
    const token = oneLine(await io.readStdin(), '--token-stdin');
    if (!token)
      throw new UsageError('--token-stdin: no token was given (stdin was empty, or Ctrl-D at the prompt)');
    return token;
  }
  if (!flagged) return undefined;
  io.stderr(PROCESS_LIST_WARNING);
  return values.token as string;
}

/**
 * The token read from stdin, trimmed: one line. More lines (a password manager's whole entry) are
 * refused rather than sent, and not quoted.
 */
function oneLine(text: string, from: string): string {
  const token = text.trim();
  if (/[\r\n]/.test(token))
    throw new UsageError(
      `${from}: stdin holds more than one line, and a token is one line (for an entry with more, \`pass show marketplace | head -n 1 | marketplace …\`)`,
    );
  return token;
}

/** How long the SDK waits for each answer (ms) and how often it tries again, when the user said. */
interface Patience {
  timeout?: number;
  maxRetries?: number;
}

/** The SDK's default timeout, for the message when nothing else was said. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * `--timeout SECONDS` and `--max-retries N`, else `MARKETPLACE_TIMEOUT` and
 * `MARKETPLACE_MAX_RETRIES`: the SDK's `timeout` and `maxRetries` (a server that never answers
 * otherwise takes 4 attempts of 30 s). A value that is not a number of the kind is a usage error.
 */
function patienceOf(values: Record<string, unknown>, io: IO): Patience {
  const given = (name: string, variable: string) => {
    const value = values[name];
    if (typeof value === 'string') return { value, from: `--${name}` };
    const env = io.env[variable];
    return env ? { value: env, from: variable } : undefined;
  };
  const patience: Patience = {};
  const timeout = given('timeout', 'MARKETPLACE_TIMEOUT');
  if (timeout) {
    const seconds = Number(timeout.value);
    if (timeout.value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 2_000_000)
      throw new UsageError(`${timeout.from} must be a number of seconds above 0 (0.5, 10)`);
    patience.timeout = Math.max(1, Math.round(seconds * 1000));
  }
  const retries = given('max-retries', 'MARKETPLACE_MAX_RETRIES');
  if (retries) {
    const count = Number(retries.value);
    if (!/^\d+$/.test(retries.value.trim()) || !Number.isSafeInteger(count))
      throw new UsageError(`${retries.from} must be a whole number, 0 or more`);
    patience.maxRetries = count;
  }
  return patience;
}

/**
 * A `fetch` for the SDK that counts the attempts of the latest request (the same method and URL
 * again is a retry), so that a timeout can say how many there were.
 */
function counted(): { fetch: Fetch; attempts: () => number } {
  let last = '';
  let count = 0;
  const fetch: Fetch = (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const key = `${init?.method ?? request?.method ?? 'GET'} ${request?.url ?? String(input)}`;
    count = key === last ? count + 1 : 1;
    last = key;
    return globalThis.fetch(input, init);
  };
  return { fetch, attempts: () => count };
}

/** A client, and how long it waited and how often it tried when no answer came. */
interface Client {
  client: Marketplace;
  waited: () => Waited;
}

/**
 * The SDK's client, or a usage error naming where the token or the base URL came from when the SDK
 * refuses it (a character a header cannot carry, a URL that is not http(s)); its message never
 * quotes the token.
 */
function clientFor(token: Given, baseUrl: Given, patience: Patience): Client {
  const { fetch, attempts } = counted();
  try {
    const client = new Marketplace({ token: token.value, baseUrl: baseUrl.value, fetch, ...patience });
    const seconds = (patience.timeout ?? DEFAULT_TIMEOUT_MS) / 1000;
    return { client, waited: () => ({ seconds, attempts: attempts() }) };
  } catch (error) {
    if (!(error instanceof ClientOptionError)) throw error;
    const which =
      error.option === 'token' ? `the token from ${token.source}` : `the base URL from ${baseUrl.source}`;
    throw new UsageError(`${which} ${error.problem}`);
  }
}

/**
 * A base URL the SDK would refuse (not an absolute http(s) URL, a user name or password in it) is
 * a usage error saying so, checked before anything else is said about it: a message comparing it
 * with the stored login would quote it whole, password and all, and advise logging in to it.
 */
function checkBaseUrl(baseUrl: Given): void {
  try {
    // The SDK's own check, through its public constructor; the token is a stand-in, never sent.
    new Marketplace({ token: 'mkt_check', baseUrl: baseUrl.value, cache: false });
  } catch (error) {
    if (error instanceof ClientOptionError && error.option === 'baseUrl')
      throw new UsageError(`the base URL from ${baseUrl.source} ${error.problem}`);
    throw error;
  }
}

/** A URL as a message may show it: a password in it (a config file written by hand) is not. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return String(parsed);
  } catch {
    return url;
  }
}

/** A value given to the CLI, and where it came from (a flag, a variable, the config file's path). */
interface Given {
  value: string;
  source: string;
}

/** A base URL as the SDK uses it (`http://h:3000/` and `http://H:3000` are one server). */
const sameUrl = (a: string, b: string) => {
  const normal = (url: string) => {
    try {
      return String(new URL(url)).replace(/\/+$/, '');
    } catch {
      return url;
    }
  };
  return normal(a) === normal(b);
};

/**
 * Token and base URL: for this call (flags, then the environment), else the stored login. The
 * stored token goes only to the base URL it was stored with: another one given by a flag or the
 * environment is a usage error, unless a token is given for this call too.
 */
async function credentials(
  values: Record<string, unknown>,
  io: IO,
): Promise<{ token: Given | undefined; baseUrl: Given | undefined }> {
  const flagToken = await tokenForThisCall(values, io);
  const tokenGiven = flagToken
    ? { value: flagToken, source: values['token-stdin'] ? '--token-stdin' : '--token' }
    : io.env.MARKETPLACE_TOKEN
      ? { value: io.env.MARKETPLACE_TOKEN, source: 'MARKETPLACE_TOKEN' }
      : undefined;
  const baseUrlGiven =
    typeof values['base-url'] === 'string' && values['base-url'] !== ''
      ? { value: values['base-url'], source: '--base-url' }
      : io.env.MARKETPLACE_BASE_URL
        ? { value: io.env.MARKETPLACE_BASE_URL, source: 'MARKETPLACE_BASE_URL' }
        : undefined;
  if (baseUrlGiven) checkBaseUrl(baseUrlGiven);
  if (tokenGiven && baseUrlGiven) return { token: tokenGiven, baseUrl: baseUrlGiven };
  // The stored login is read only when needed: a broken file does not stop a command given both.
  const config = await storedLogin(io);
  const path = configPath(io.env);
  const stored = (value: string | undefined) => (value ? { value, source: path } : undefined);
  if (tokenGiven) return { token: tokenGiven, baseUrl: stored(config.base_url) };
  if (config.token && baseUrlGiven && !(config.base_url && sameUrl(config.base_url, baseUrlGiven.value))) {
    const storedFor = config.base_url
      ? `the stored token (${path}) is for ${shown(config.base_url)}`
      : `the stored token (${path}) has no base URL with it`;
    throw new UsageError(
      `${storedFor}; it is not sent to ${baseUrlGiven.value} (from ${baseUrlGiven.source}). Give a token for ${baseUrlGiven.value} with --token-stdin or MARKETPLACE_TOKEN, or run \`marketplace auth login --base-url ${baseUrlGiven.value}\``,
    );
  }
  return { token: stored(config.token), baseUrl: baseUrlGiven ?? stored(config.base_url) };
}

/** The stored login; a file that cannot be read is a usage error (one line, exit 2). */
async function storedLogin(io: IO): Promise<Config> {
  const path = configPath(io.env);
  try {
    return await readConfig(path, (mode) =>
      io.stderr(
        `marketplace: warning: ${path} is readable by others (mode 0${mode.toString(8)}); run \`chmod 600 ${path}\` or \`marketplace auth login\` again\n`,
      ),
    );
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (fix or delete it, or run \`marketplace auth login\`)`);
  }
}

/**
 * Where the token and the base URL of a call came from, as the hints of its errors say it: the
 * flag or variable, or, for the stored token, the command that stored it and the file.
 */
function sourcesOf(token: Given, baseUrl: Given, io: IO): SettingSources {
  const path = configPath(io.env);
  return {
    token: token.source === path ? `\`marketplace auth login\` (${path})` : token.source,
    baseUrl: baseUrl.source,
  };
}

/** The client of this call, and where its token and base URL came from (the hints name them). */
export async function clientOf(
  values: Record<string, unknown>,
  io: IO,
): Promise<Client & { from: SettingSources }> {
  const patience = patienceOf(values, io);
  const { token, baseUrl } = await credentials(values, io);
  if (!token) throw new UsageError('no token: run `marketplace auth login`, or set MARKETPLACE_TOKEN');
  if (!baseUrl) throw new UsageError('no base URL: pass --base-url, or set MARKETPLACE_BASE_URL');
  return { ...clientFor(token, baseUrl, patience), from: sourcesOf(token, baseUrl, io) };
}

const AUTH_ACTIONS = ['login', 'status', 'logout'];

const authHelp = `Usage: marketplace auth <login|status|logout>

  login [--base-url URL]   check the token and store it with the base URL; the token is read
                           from a prompt that does not echo (in a terminal) or from stdin
                           (--token-stdin says so explicitly; --token T works, but shows it in ps)
  status                   show where the token comes from and check it
  logout                   forget the stored token

The login is stored in $XDG_CONFIG_HOME/marketplace/config.json (mode 0600, directory 0700).
The stored token is sent only to the base URL stored with it.
`;

export async function auth(argv: string[], io: IO): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: globalOptions, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`auth: ${optionError(error, globalOptions)}`);
  }
  const values = parsed.values as Record<string, unknown>;
  const [action, ...rest] = parsed.positionals;
  if (values.help || !action) {
    (values.help ? io.stdout : io.stderr)(authHelp);
    return values.help ? EXIT_OK : EXIT_USAGE;
  }
  if (rest.length > 0) throw new UsageError(`auth ${action}: unexpected "${rest.join(' ')}"`);
  const path = configPath(io.env);
  if (action === 'login') {
    const flagged = await tokenForThisCall(values, io);
    const token = flagged ?? oneLine(await io.readStdin(), 'auth login');
    const tokenSource = flagged ? (values['token-stdin'] ? '--token-stdin' : '--token') : 'stdin';
    // A file that cannot be read is replaced by the new login.
    const stored = await readConfig(path).catch((): Config => ({}));
    const baseUrl: Given | undefined =
      typeof values['base-url'] === 'string' && values['base-url'] !== ''
        ? { value: values['base-url'], source: '--base-url' }
        : io.env.MARKETPLACE_BASE_URL
          ? { value: io.env.MARKETPLACE_BASE_URL, source: 'MARKETPLACE_BASE_URL' }
          : stored.base_url
            ? { value: stored.base_url, source: path }
            : undefined;
    if (!token)
      throw new UsageError(
        'auth login: no token was given; nothing was stored (give it on stdin or type it at the prompt)',
      );
    if (!baseUrl) throw new UsageError('auth login: give --base-url, or set MARKETPLACE_BASE_URL');
    const client = clientFor({ value: token, source: tokenSource }, baseUrl, patienceOf(values, io));
    const code = await check(client, io, { token: tokenSource, baseUrl: baseUrl.source });
    if (code !== EXIT_OK) return code;
    const config: Config = { token, base_url: baseUrl.value };
    await writeConfig(path, config);
    io.stdout(`Logged in to ${baseUrl.value}; the token is stored in ${path}\n`);
    return EXIT_OK;
  }
  if (action === 'status') {
    const { token, baseUrl } = await credentials(values, io);
    if (!token || !baseUrl) {
      io.stderr(`Not logged in (no token from --token-stdin, MARKETPLACE_TOKEN or ${path})\n`);
      return EXIT_API;
    }
    const client = clientFor(token, baseUrl, patienceOf(values, io));
    io.stdout(`${baseUrl.value}: token ${token.value.slice(0, 8)}… from ${token.source}\n`);
    const code = await check(client, io, sourcesOf(token, baseUrl, io));
    if (code === EXIT_OK) io.stdout('The token works.\n');
    return code;
  }
  if (action === 'logout') {
    // A file that cannot be read is said to be so (exit 2): it may hold a token all the same.
    const { token, ...rest } = await storedLogin(io);
    if (token === undefined) {
      io.stdout(`No token is stored in ${path}; nothing to remove\n`);
      return EXIT_OK;
    }
    await writeConfig(path, rest);
    io.stdout(`The token is removed from ${path}\n`);
    return EXIT_OK;
  }
  throw new UsageError(`auth: unknown action "${action}".${didYouMean(action, AUTH_ACTIONS, 'auth ')}`);
}

/** A read any token may make: does the token work? */
async function check({ client, waited }: Client, io: IO, from: SettingSources): Promise<number> {
  try {
    await client.me.notificationSettings.retrieve({ cache: false });
    return EXIT_OK;
  } catch (error) {
    return reportError(error, io, false, { from, answeredByEveryApi: true, waited: waited() });
  }
}
