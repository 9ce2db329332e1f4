/** The command line's words: global options, an operation's fields as flags, their values. */
import { booleanFromText, isOneOrZeroEnum, numberFromText, oneOrZeroFromBoolean } from '@app/schemas';
import { fileValueReader, inputJsonSchema, nearNames, type Operation } from '@app/sdk/operations';

/** A usage error: exit 2, the message and where to find help. */
export class UsageError extends Error {
  /** The command words whose `--help` the message points to (none: the top level's). */
  help: readonly string[] = [];
}

export const EXIT_OK = 0;
export const EXIT_API = 1;
/** Anything else that failed (stdout could not be written): one line on stderr, as an API error's. */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** Ctrl-C at a prompt: 128 + SIGINT, what a shell reports for a command Ctrl-C ended. */
export const EXIT_INTERRUPTED = 130;

/** Ctrl-C at a prompt (a confirmation, the token): the CLI ends quietly, nothing sent or stored. */
export class Interrupted extends Error {}

/** Options every command takes, before or after the command words. */
export const globalOptions = {
  output: { type: 'string', short: 'o' },
  include: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'no-color': { type: 'boolean' },
  token: { type: 'string' },
  'token-stdin': { type: 'boolean' },
  'base-url': { type: 'string' },
  timeout: { type: 'string' },
  'max-retries': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export const globalHelp = `Global options:
  -o, --output json|table  output format (default: table in a terminal, JSON otherwise)
  --include                print the HTTP status and headers before the body
  -y, --yes                do not ask before a delete or a transition (needed without a terminal)
  --no-color               no colour (also NO_COLOR=1; FORCE_COLOR=1 colours without a terminal)
  --token-stdin            read the access token from stdin (a hidden prompt in a terminal)
                           (default: MARKETPLACE_TOKEN, then the stored login, for its base URL only)
  --token T                the same, but visible to every user in the process list: avoid
  --base-url URL           the API's address (default: MARKETPLACE_BASE_URL, then the stored login)
  --timeout SECONDS        wait this long for each answer (default: MARKETPLACE_TIMEOUT, else 30)
  --max-retries N          try again this often after no answer or a 5xx (default: MARKETPLACE_MAX_RETRIES, else 3)
  -h, --help               help for any command
  -v, --version            the version`;

/** The short options, as words on the command line. */
const SHORT: Record<string, string> = { '-h': 'help', '-o': 'output', '-v': 'version', '-y': 'yes' };

export const flag = (field: string) => `--${field.replaceAll('_', '-')}`;

/** A long option (`--all`, `--city=Oslo`), `--`, or one of the short ones (`-h`, `-o`, `-v`, `-y`). */
export const isOption = (arg: string) =>
  /^--([a-z][a-z0-9_-]*(=.*)?)?$/s.test(arg) || Object.hasOwn(SHORT, arg);

/** The global option `arg` is (`--output`, `--output=json`, `-o`), if it is one. */
export function globalOptionOf(arg: string): (typeof globalOptions)[keyof typeof globalOptions] | undefined {
  const name = /^--([a-z-]+)(=.*)?$/.exec(arg)?.[1] ?? SHORT[arg] ?? '';
  return Object.hasOwn(globalOptions, name) ? globalOptions[name as keyof typeof globalOptions] : undefined;
}

/**
 * Global options given before the command (`marketplace --output table organizations list`), or
 * before its next word (`marketplace organizations -o table list`), go after it.
 */
export function hoistGlobalOptions(argv: string[]): string[] {
  const moved: string[] = [];
  while (argv.length > 0) {
    const arg = argv[0] as string;
    const option = globalOptionOf(arg);
    if (!option) break;
    moved.push(argv.shift() as string);
    if (option.type === 'string' && !arg.includes('=') && argv.length > 0) moved.push(argv.shift() as string);
  }
  return [...argv, ...moved];
}

/** Whether `arg` is a global option (`--include`, `--output=json`, `-o`). */
export const isGlobalOption = (arg: string): boolean => globalOptionOf(arg) !== undefined;

export interface FieldInfo {
  name: string;
  type: string;
  required: boolean;
  description: string | undefined;
  schema: Record<string, unknown>;
}

/** An operation's fields (path parameters, query and body fields), from its input schema. */
export function fieldsOf(op: Operation): FieldInfo[] {
  const json = inputJsonSchema(op);
  return Object.entries(json.properties).map(([name, schema]) => ({
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

/** The JSON types a field takes (`string`, `null`, `array`, …). */
export const typesOf = (field: FieldInfo): ReadonlySet<string> =>
  new Set<string>(
    [
      field.schema.type,
      ...((field.schema.anyOf as { type?: string }[] | undefined) ?? []).map((s) => s.type),
    ].filter((t): t is string => typeof t === 'string'),
  );

/**
 * A field whose values are `"1"` and `"0"` (`purge_logo`; the wire format stays those strings): a
 * switch on the command line, as a boolean is.
 */
export const isOneOrZero = (field: FieldInfo): boolean => isOneOrZeroEnum(field.schema.enum);

/**
 * The words of the fields' flags as `parseArgs` is to read them. A boolean field's flag alone
 * (`--push-notifications-enabled`, then another option or nothing) means `true`, and `--no-<flag>`
 * means `false`, as in most CLIs; `--flag true|false` and `--flag=…` are as they were. A
 * `"1"`/`"0"` field's (`--purge-logo`) alike: alone `1`, `--no-<flag>` `0`. A number field's flag
 * takes a negative number as its next word (`--cpm-amount -2`, as `--cpm-amount=-2`): no option
 * is a "-" and a digit, and `parseArgs` refuses any value that starts with "-". Words after `--`
 * are left alone.
 */
export function fieldFlags(argv: readonly string[], fields: readonly FieldInfo[]): string[] {
  const on = new Map<string, [string, string]>();
  const numbers = new Set<string>();
  for (const f of fields) {
    const types = typesOf(f);
    const values: [string, string] | undefined =
      types.has('boolean') && [...types].every((t) => t === 'boolean' || t === 'null')
        ? ['true', 'false']
        : isOneOrZero(f)
          ? ['1', '0']
          : undefined;
    if (values) for (const name of [flag(f.name), `--${f.name}`]) on.set(name, values);
    if (types.has('integer') || types.has('number'))
      for (const name of [flag(f.name), `--${f.name}`]) numbers.add(name);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const negated = /^--no-(.+)$/s.exec(arg)?.[1];
    const off = negated === undefined ? undefined : on.get(`--${negated}`)?.[1];
    if (off !== undefined) {
      out.push(`--${negated}=${off}`);
      continue;
    }
    const next = argv[i + 1];
    if (numbers.has(arg) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
      continue;
    }
    out.push(arg);
    const alone = on.get(arg)?.[0];
    if (alone !== undefined && (next === undefined || next.startsWith('-'))) out.push(alone);
  }
  return out;
}

/**
 * A flag's string value as the field's type: numbers (as JSON writes them), booleans (`true`,
 * `false`), lists (JSON or comma-separated), null.
 */
export function coerce(field: FieldInfo, values: string[]): unknown {
  const types = typesOf(field);
  const one = (value: string): unknown => {
    if (value === 'null' && types.has('null')) return null;
    // A number as JSON writes it (`@app/schemas`, the MCP server's rule too): `0x1F4`, ` 500`,
    // `Infinity` stay text, which the field's check refuses; `Number()` read them as numbers.
    const number = types.has('integer') || types.has('number') ? numberFromText(value) : undefined;
    if (number !== undefined) return number;
    const boolean = types.has('boolean') ? booleanFromText(value) : undefined;
    if (boolean !== undefined) return boolean;
    // `--purge-logo true|false`: a boolean's words for the wire's "1" and "0" (the MCP tools' rule too).
    const flag = isOneOrZero(field) ? oneOrZeroFromBoolean(value) : undefined;
    if (flag !== undefined) return flag;
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

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/** Why a file given on the command line cannot be read, in a few words (`no such file`). */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return (code && FILE_ERRORS[code]) ?? (error as Error).message;
}

/** A `--body @file`: at most the API's JSON body limit (1 MiB) is read. */
const readBodyFile = fileValueReader({ maxBytes: 1024 * 1024 });

/**
 * `--body '{…}'`, `--body @file` or `--body @-` (stdin, read with `readStdin`): a JSON object. A
 * UTF-8 byte order mark at the start (an editor's on Windows) is skipped; JSON that does not parse
 * is a usage error with the parser's words (where it stopped).
 */
export async function readBody(
  value: string,
  readStdin: () => Promise<string>,
): Promise<Record<string, unknown>> {
  let text = value;
  if (value === '@-') text = await readStdin();
  else if (value.startsWith('@')) {
    try {
      // At most the API's JSON body limit: `@/dev/zero` is refused, not read until memory runs out.
      text = await (await readBodyFile(value.slice(1), 'body')).text();
    } catch (error) {
      throw new UsageError(`--body: cannot read ${value.slice(1)}: ${fileProblem(error)}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`--body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`--body must be a JSON object (or @file holding one), not ${kindOf(parsed)}`);
  return parsed as Record<string, unknown>;
}

/** What a JSON value is, in words (`an array`, `a string`, `null`). */
const kindOf = (value: unknown) =>
  Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;

/**
 * What `parseArgs` refused, said in the CLI's words (its own messages explain its syntax, with a
 * quote left open): an unknown option with the nearest known ones, an option given no value.
 */
export function optionError(
  error: unknown,
  options: Record<string, { type: string; short?: string }>,
): string {
  const { code, message } = error as { code?: string; message: string };
  // The first option the message quotes: `'--nmae'`, `'-o'`; an option with a short alias is
  // quoted as `'-o, --output <value>'` (whichever form was typed), of which the long one is taken.
  const name = /'(?:-[^-' ], )?(-[^' =]+)/.exec(message)?.[1];
  // A field's flag is also taken as its name (`--account_url`); only the documented one is named.
  const keys = Object.keys(options);
  const documented = keys.filter((key) => !key.includes('_') || !keys.includes(key.replaceAll('_', '-')));
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && name)
    return `unknown option ${name}.${name.startsWith('--') ? didYouMean(name.slice(2), documented, '--') : ''}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name) {
    // Said of the long option, which takes a value starting with "-" after `=` (`-o=-x` is `=-x`).
    const long = name.startsWith('--')
      ? name
      : `--${Object.keys(options).find((key) => `-${options[key]?.short}` === name) ?? name.slice(1)}`;
    const short = options[long.slice(2)]?.short;
    return `${long} needs a value (${long} VALUE${short ? ` or -${short} VALUE` : ''}; a value that starts with "-" as ${long}=-VALUE)`;
  }
  return message;
}

/**
 * ` Did you mean "x"?` for a mistyped word: the known words near it (`nearNames` of the SDK's
 * operations, which name the arguments an unknown one may have meant), nearest first; '' when none
 * is near.
 */
export function didYouMean(word: string, known: Iterable<string>, prefix = ''): string {
  const near = nearNames(word, known).map((name) => `"${prefix}${name}"`);
  if (near.length === 0) return '';
  return ` Did you mean ${near.length === 1 ? near[0] : `one of ${near.slice(0, 3).join(', ')}`}?`;
}
