/**
 * `marketplace <group> <method> [ids…] [--field value…]`: one command per public endpoint, generated
 * from `@app/sdk/operations` (no command is written by hand).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { IDEMPOTENCY_KEY_PATTERN } from '@app/schemas';
import {
  APIConnectionError,
  APIError,
  Marketplace,
  MarketplaceError,
  RequestValidationError,
  VERSION,
} from '@app/sdk';
import {
  callOperation,
  type FileReader,
  type ListResult,
  type Operation,
  operations,
  readFileValue,
} from '@app/sdk/operations';
import { z } from 'zod';
import { completionScript, completions } from './completion.js';
import { type Config, configPath, readConfig, writeConfig } from './config.js';
import { escapeControls, formatTable } from './table.js';

/** Where the CLI writes, and whether stdout is a terminal (table output by default). */
export interface IO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Reads a token: a prompt that does not echo in a terminal, else all of stdin (`--token-stdin`, `auth login`). */
  readStdin: () => Promise<string>;
}

/** A usage error: exit 2, the message and where to find help. */
class UsageError extends Error {}

const EXIT_OK = 0;
const EXIT_API = 1;
const EXIT_USAGE = 2;

/** The command tree: `me` → `social-accounts` → `list` → operation. */
interface Node {
  children: Map<string, Node>;
  op?: Operation;
}

const tree: Node = { children: new Map() };
for (const op of operations) {
  let node = tree;
  for (const word of op.command) {
    let child = node.children.get(word);
    if (!child) {
      child = { children: new Map() };
      node.children.set(word, child);
    }
    node = child;
  }
  node.op = op;
}
const builtins: Record<string, string> = {
  auth: 'Log in (store a token), show the login status, log out',
  completion: 'Print the bash or zsh completion script',
};

const globalOptions = {
  output: { type: 'string' },
  include: { type: 'boolean' },
  token: { type: 'string' },
  'token-stdin': { type: 'boolean' },
  'base-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

const globalHelp = `Global options:
  --output json|table   output format (default: table in a terminal, JSON otherwise)
  --include             print the HTTP status and headers before the body
  --token-stdin         read the access token from stdin (a hidden prompt in a terminal)
                        (default: MARKETPLACE_TOKEN, then the stored login, for its base URL only)
  --token T             the same, but visible to every user in the process list: avoid
  --base-url URL        the API's address (default: MARKETPLACE_BASE_URL, then the stored login)
  -h, --help            help for any command
  -v, --version         the version`;

const flag = (field: string) => `--${field.replaceAll('_', '-')}`;

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: readonly string[], terminal: IO): Promise<number> {
  // Nothing on stderr drives the terminal: an error body, a message, a usage error quoting argv.
  const io: IO = { ...terminal, stderr: (text) => terminal.stderr(escapeControls(text)) };
  try {
    return await dispatch([...argv], io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`marketplace: ${error.message}\nRun \`marketplace --help\` for usage.\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

async function dispatch(argv: string[], io: IO): Promise<number> {
  if (argv[0] === '__complete') {
    io.stdout(completions(tree, builtins, argv.slice(1)).join('\n'));
    return EXIT_OK;
  }
  argv = hoistGlobalOptions(argv);
  // Walk the command words down the tree; the rest are ids and options.
  let node = tree;
  const words: string[] = [];
  while (argv.length > 0 && !argv[0]?.startsWith('-') && node.children.has(argv[0] as string) && !node.op) {
    const word = argv.shift() as string;
    words.push(word);
    node = node.children.get(word) as Node;
  }
  const first = words[0] ?? argv[0];
  if (words.length === 0 && first === 'auth') return auth(argv.slice(1), io);
  if (words.length === 0 && first === 'completion') return completion(argv.slice(1), io);
  if (!node.op) {
    const asked = argv.includes('--help') || argv.includes('-h');
    if (argv.includes('--version') || argv.includes('-v')) {
      io.stdout(`${VERSION}\n`);
      return EXIT_OK;
    }
    if (asked || (argv.length === 0 && words.length > 0) || (argv.length === 0 && words.length === 0)) {
      const text = groupHelp(words, node);
      if (asked) io.stdout(text);
      else io.stderr(text);
      return asked ? EXIT_OK : EXIT_USAGE;
    }
    throw new UsageError(`unknown command "${[...words, argv[0]].join(' ')}"`);
  }
  return runOperation(node.op, argv, io);
}

/** Global options given before the command (`marketplace --output table organizations list`) go after it. */
function hoistGlobalOptions(argv: string[]): string[] {
  const moved: string[] = [];
  while (argv.length > 0) {
    const arg = argv[0] as string;
    const name =
      /^--([a-z-]+)(=.*)?$/.exec(arg)?.[1] ?? (arg === '-h' ? 'help' : arg === '-v' ? 'version' : '');
    const option = Object.hasOwn(globalOptions, name)
      ? globalOptions[name as keyof typeof globalOptions]
      : undefined;
    if (!option) break;
    moved.push(argv.shift() as string);
    if (option.type === 'string' && !arg.includes('=') && argv.length > 0) moved.push(argv.shift() as string);
  }
  return [...argv, ...moved];
}

function groupHelp(words: string[], node: Node): string {
  const lines = [`Usage: marketplace ${[...words, '<command>'].join(' ')} [ids…] [--field value…]`, ''];
  if (words.length === 0) lines.push('The creator-marketplace API from the command line.', '');
  lines.push('Commands:');
  const entries: [string, string][] = [...node.children].map(([word, child]) => [word, describe(child)]);
  if (words.length === 0) entries.push(...Object.entries(builtins));
  const width = Math.max(...entries.map(([w]) => w.length));
  for (const [word, text] of entries) lines.push(`  ${word.padEnd(width)}  ${text}`);
  lines.push('', globalHelp, '');
  return lines.join('\n');
}

/** A group's line in the help: its methods; a method's: the table's summary. */
function describe(node: Node): string {
  if (node.op) return node.op.title;
  return [...node.children.keys()].join(', ');
}

interface FieldInfo {
  name: string;
  type: string;
  required: boolean;
  description: string | undefined;
  schema: Record<string, unknown>;
}

function fieldsOf(op: Operation): FieldInfo[] {
  const json = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    type: typeName(schema),
    required: json.required?.includes(name) ?? false,
    description: typeof schema.description === 'string' ? schema.description : undefined,
    schema,
  }));
}

function typeName(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.join('|');
  if (typeof schema.type === 'string') return schema.type === 'array' ? 'list' : schema.type;
  const variants = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (variants) return [...new Set(variants.map(typeName))].join('|');
  return 'value';
}

function operationHelp(op: Operation): string {
  const ids = op.pathParams.map((p) => `<${p}>`).join(' ');
  const fields = fieldsOf(op).filter((f) => !op.pathParams.includes(f.name));
  const lines = [
    `Usage: marketplace ${op.command.join(' ')}${ids ? ` ${ids}` : ''}${fields.length > 0 ? ' [--field value…]' : ''}${op.endpoint.body ? " [--body '{…}' | --body @file]" : ''}`,
    '',
    op.description,
    '',
    `${op.endpoint.method} ${op.endpoint.path}.json`,
  ];
  if (fields.length > 0 || op.kind === 'list' || op.endpoint.idempotent) {
    lines.push('', 'Options:');
    const rows: [string, string][] = fields.map((f) => [
      `${flag(f.name)} <${f.type}>`,
      [f.required ? '(required)' : '', op.fileFields.includes(f.name) ? 'a file path' : (f.description ?? '')]
        .filter(Boolean)
        .join(' '),
    ]);
    if (op.kind === 'list')
      rows.push(['--all', 'every page'], ['--max-items <n>', 'the pages from --page on, up to n items']);
    if (op.endpoint.body)
      rows.push(['--body <json|@file>', 'the fields as a JSON object (the flags win over it)']);
    if (op.endpoint.idempotent)
      rows.push(['--idempotency-key <key>', 'run it once however often it is sent (default: a random key)']);
    const width = Math.max(...rows.map(([r]) => r.length));
    for (const [left, right] of rows) lines.push(`  ${left.padEnd(width)}  ${right}`.trimEnd());
  }
  lines.push('', globalHelp, '');
  return lines.join('\n');
}

/** A flag's string value as the field's type: numbers, booleans, lists (JSON or comma-separated), null. */
function coerce(field: FieldInfo, values: string[]): unknown {
  const types = new Set<string>(
    [
      field.schema.type,
      ...((field.schema.anyOf as { type?: string }[] | undefined) ?? []).map((s) => s.type),
    ].filter((t): t is string => typeof t === 'string'),
  );
  const one = (value: string): unknown => {
    if (value === 'null' && types.has('null')) return null;
    if ((types.has('integer') || types.has('number')) && value.trim() !== '' && !Number.isNaN(Number(value)))
      return Number(value);
    if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    if (types.has('object')) {
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    }
    return value;
  };
  if (types.has('array')) {
    const items = values.flatMap((value) => {
      if (value.startsWith('[')) {
        try {
          return JSON.parse(value) as unknown[];
        } catch {
          return [value];
        }
      }
      return value === '' ? [] : value.split(',');
    });
    return items;
  }
  return one(values[values.length - 1] as string);
}

async function readBody(value: string): Promise<Record<string, unknown>> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = await readFile(value.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`--body ${value}: ${(error as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--body must be a JSON object (or @file holding one)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError('--body must be a JSON object (or @file holding one)');
  return parsed as Record<string, unknown>;
}

async function runOperation(op: Operation, argv: string[], io: IO): Promise<number> {
  const fields = fieldsOf(op).filter((f) => !op.pathParams.includes(f.name));
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    ...globalOptions,
  };
  for (const f of fields) {
    options[flag(f.name).slice(2)] = { type: 'string', multiple: true };
    if (f.name.includes('_')) options[f.name] = { type: 'string', multiple: true };
  }
  if (op.endpoint.body) options.body = { type: 'string' };
  if (op.endpoint.idempotent) options['idempotency-key'] = { type: 'string' };
  if (op.kind === 'list') {
    options.all = { type: 'boolean' };
    options['max-items'] = { type: 'string' };
  }
  // The ids right after the command are taken as they are: ids are URL-safe base64, so one may
  // start with "-" (parseArgs would read it as a short option). Ids placed later still parse.
  const leading: string[] = [];
  while (leading.length < op.pathParams.length && argv.length > 0 && !isOption(argv[0] as string))
    leading.push(argv.shift() as string);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${op.command.join(' ')}: ${(error as Error).message}`);
  }
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (values.help) {
    io.stdout(operationHelp(op));
    return EXIT_OK;
  }
  if (values.version) {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }
  const output = outputOf(values.output, io);
  const positionals = [...leading, ...parsed.positionals];
  if (positionals.length !== op.pathParams.length) {
    const expected = op.pathParams.map((p) => `<${p}>`).join(' ') || 'no ids';
    throw new UsageError(
      `${op.command.join(' ')} takes ${expected}; got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`,
    );
  }
  const args: Record<string, unknown> = {};
  op.pathParams.forEach((name, i) => {
    args[name] = positionals[i];
  });
  if (typeof values.body === 'string') {
    for (const [name, value] of Object.entries(await readBody(values.body))) {
      if (!fields.some((f) => f.name === name)) throw new UsageError(`--body: unknown field "${name}"`);
      args[name] = value;
    }
  }
  for (const f of fields) {
    const given = [
      ...((values[flag(f.name).slice(2)] as string[] | undefined) ?? []),
      ...((f.name.includes('_') ? (values[f.name] as string[] | undefined) : undefined) ?? []),
    ];
    if (given.length > 0) args[f.name] = coerce(f, given);
  }
  let maxItems: number | undefined;
  if (values.all) maxItems = Number.POSITIVE_INFINITY;
  if (typeof values['max-items'] === 'string') {
    maxItems = Number(values['max-items']);
    if (!Number.isInteger(maxItems) || maxItems < 1)
      throw new UsageError('--max-items must be a positive integer');
  }

  const idempotencyKey = values['idempotency-key'];
  if (typeof idempotencyKey === 'string' && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
    throw new UsageError('--idempotency-key must be 1 to 255 printable ASCII characters');

  const client = await clientOf(values, io);
  try {
    const result = await callOperation(client, op, args, {
      readFile: readFileField,
      ...(maxItems !== undefined && { maxItems }),
      ...(typeof idempotencyKey === 'string' && { idempotencyKey }),
    });
    const data = op.kind === 'list' ? (result as ListResult).data : result.data;
    if (values.include && result.response) io.stdout(formatHead(result.response));
    if (op.kind === 'delete') {
      if (output === 'table') io.stdout('Deleted.\n');
    } else io.stdout(output === 'json' ? `${JSON.stringify(data, null, 2)}\n` : formatTable(data));
    return EXIT_OK;
  } catch (error) {
    return reportError(error, io, Boolean(values.include));
  }
}

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/** A file field's path that cannot be read is a usage error on that flag (exit 2). */
const readFileField: FileReader = async (value, field) => {
  try {
    return await readFileValue(value, field);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new UsageError(
      `${flag(field)}: cannot read ${value}: ${FILE_ERRORS[code] ?? (error as Error).message}`,
    );
  }
};

/** A long option (`--all`, `--city=Oslo`), `--`, or one of the short ones (`-h`, `-v`). */
const isOption = (arg: string) => /^--([a-z][a-z0-9_-]*(=.*)?)?$/s.test(arg) || arg === '-h' || arg === '-v';

function outputOf(value: unknown, io: IO): 'json' | 'table' {
  if (value === undefined) return io.isTTY ? 'table' : 'json';
  if (value === 'json' || value === 'table') return value;
  throw new UsageError('--output must be json or table');
}

function formatHead(response: Response): string {
  const lines = [`HTTP ${response.status} ${response.statusText}`.trimEnd()];
  response.headers.forEach((value, name) => {
    lines.push(`${name}: ${value}`);
  });
  return escapeControls(`${lines.join('\n')}\n\n`);
}

/** An API error: exit 1, its status and body on stderr. A payload refused before sending: exit 2. */
function reportError(error: unknown, io: IO, include: boolean): number {
  if (error instanceof APIError) {
    if (include) io.stderr(formatHead(new Response(null, { status: error.status, headers: error.headers })));
    else io.stderr(`marketplace: ${error.message}\n`); // the message starts with the status
    const body = error.body;
    io.stderr(`${typeof body === 'string' ? body : JSON.stringify(body, null, 2)}\n`);
    return EXIT_API;
  }
  if (error instanceof RequestValidationError) {
    io.stderr(`marketplace: ${error.message}\n${JSON.stringify({ errors: error.errors }, null, 2)}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof APIConnectionError || error instanceof MarketplaceError) {
    io.stderr(`marketplace: ${error.message}\n`);
    return EXIT_API;
  }
  throw error;
}

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
    const token = (await io.readStdin()).trim();
    if (!token) throw new UsageError('--token-stdin: no token on stdin');
    return token;
  }
  if (!flagged) return undefined;
  io.stderr(PROCESS_LIST_WARNING);
  return values.token as string;
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
): Promise<{ token: string | undefined; baseUrl: string | undefined; source: string }> {
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
  if (tokenGiven && baseUrlGiven)
    return { token: tokenGiven.value, baseUrl: baseUrlGiven.value, source: tokenGiven.source };
  // The stored login is read only when needed: a broken file does not stop a command given both.
  const config = await storedLogin(io);
  if (tokenGiven) return { token: tokenGiven.value, baseUrl: config.base_url, source: tokenGiven.source };
  if (config.token && baseUrlGiven && !(config.base_url && sameUrl(config.base_url, baseUrlGiven.value))) {
    const path = configPath(io.env);
    const stored = config.base_url
      ? `the stored token (${path}) is for ${config.base_url}`
      : `the stored token (${path}) has no base URL with it`;
    throw new UsageError(
      `${stored}; it is not sent to ${baseUrlGiven.value} (from ${baseUrlGiven.source}). Give a token for ${baseUrlGiven.value} with --token-stdin or MARKETPLACE_TOKEN, or run \`marketplace auth login --base-url ${baseUrlGiven.value}\``,
    );
  }
  return { token: config.token, baseUrl: baseUrlGiven?.value ?? config.base_url, source: 'config' };
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

async function clientOf(values: Record<string, unknown>, io: IO): Promise<Marketplace> {
  const { token, baseUrl } = await credentials(values, io);
  if (!token) throw new UsageError('no token: run `marketplace auth login`, or set MARKETPLACE_TOKEN');
  if (!baseUrl) throw new UsageError('no base URL: pass --base-url, or set MARKETPLACE_BASE_URL');
  return new Marketplace({ token, baseUrl });
}

const authHelp = `Usage: marketplace auth <login|status|logout>

  login [--base-url URL]   check the token and store it with the base URL; the token is read
                           from a prompt that does not echo (in a terminal) or from stdin
                           (--token-stdin says so explicitly; --token T works, but shows it in ps)
  status                   show where the token comes from and check it
  logout                   forget the stored token

The login is stored in $XDG_CONFIG_HOME/marketplace/config.json (mode 0600, directory 0700).
The stored token is sent only to the base URL stored with it.
`;

async function auth(argv: string[], io: IO): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: globalOptions, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`auth: ${(error as Error).message}`);
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
    const token = (await tokenForThisCall(values, io)) ?? (await io.readStdin()).trim();
    // A file that cannot be read is replaced by the new login.
    const stored = await readConfig(path).catch((): Config => ({}));
    const baseUrl =
      (typeof values['base-url'] === 'string' ? values['base-url'] : undefined) ??
      io.env.MARKETPLACE_BASE_URL ??
      stored.base_url;
    if (!token) throw new UsageError('auth login: give the token on stdin or at the prompt');
    if (!baseUrl) throw new UsageError('auth login: give --base-url, or set MARKETPLACE_BASE_URL');
    const code = await check(new Marketplace({ token, baseUrl }), io);
    if (code !== EXIT_OK) return code;
    const config: Config = { token, base_url: baseUrl };
    await writeConfig(path, config);
    io.stdout(`Logged in to ${baseUrl}; the token is stored in ${path}\n`);
    return EXIT_OK;
  }
  if (action === 'status') {
    const { token, baseUrl, source } = await credentials(values, io);
    if (!token || !baseUrl) {
      io.stderr(`Not logged in (no token from --token-stdin, MARKETPLACE_TOKEN or ${path})\n`);
      return EXIT_API;
    }
    io.stdout(`${baseUrl}: token ${token.slice(0, 8)}… from ${source === 'config' ? path : source}\n`);
    const code = await check(new Marketplace({ token, baseUrl }), io);
    if (code === EXIT_OK) io.stdout('The token works.\n');
    return code;
  }
  if (action === 'logout') {
    const { token: _token, ...rest } = await readConfig(path).catch((): Config => ({}));
    await writeConfig(path, rest);
    io.stdout(`The token is removed from ${path}\n`);
    return EXIT_OK;
  }
  throw new UsageError(`auth: unknown action "${action}"`);
}

/** A read any token may make: does the token work? */
async function check(client: Marketplace, io: IO): Promise<number> {
  try {
    await client.me.notificationSettings.retrieve({ cache: false });
    return EXIT_OK;
  } catch (error) {
    return reportError(error, io, false);
  }
}

function completion(argv: string[], io: IO): number {
  const shell = argv[0];
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(
      'Usage: marketplace completion bash|zsh\n\n  eval "$(marketplace completion bash)"   # in ~/.bashrc\n',
    );
    return EXIT_OK;
  }
  if (shell !== 'bash' && shell !== 'zsh') throw new UsageError('completion: say bash or zsh');
  io.stdout(completionScript(shell));
  return EXIT_OK;
}

export { configPath, type Node as CommandNode };
