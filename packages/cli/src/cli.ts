/**
 * `marketplace <group> <method> [ids…] [--field value…]`: one command per public endpoint, generated
 * from `@app/sdk/operations` (no command is written by hand). This file runs a command line; the
 * rest is by concern: commands.ts (the tree, help, suggestions), arguments.ts (options, flags,
 * values), output.ts and table.ts (what is printed), confirm.ts, auth.ts, completion.ts.
 */
import { parseArgs } from 'node:util';
import { IDEMPOTENCY_KEY_PATTERN } from '@app/schemas';
import { RequestValidationError, VERSION } from '@app/sdk';
import {
  callOperation,
  DEFAULT_MAX_UPLOAD_BYTES,
  type FileReader,
  fileValueReader,
  type ListResult,
  type Operation,
} from '@app/sdk/operations';
import {
  coerce,
  didYouMean,
  EXIT_FAILED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_USAGE,
  type FieldInfo,
  fieldFlags,
  fieldsOf,
  fileProblem,
  flag,
  globalHelp,
  globalOptions,
  hoistGlobalOptions,
  Interrupted,
  isGlobalOption,
  isOneOrZero,
  isOption,
  optionError,
  readBody,
  typesOf,
  UsageError,
} from './arguments.js';
import { auth, clientOf } from './auth.js';
import { builtins, groupHelp, missingCommand, type Node, tree, unknownCommand } from './commands.js';
import { completion, completions } from './completion.js';
import { configPath } from './config.js';
import { canAsk, confirmed } from './confirm.js';
import {
  formatHead,
  type IO,
  OutputFailed,
  outputOf,
  pageNotice,
  pastLastPage,
  reportError,
  styleOf,
  widthOf,
} from './output.js';
import {
  escapeControls,
  formatTable,
  type Layout,
  type ListTable,
  laterFields,
  listRows,
  listTable,
  notShown,
  wrap,
} from './table.js';

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: readonly string[], terminal: IO): Promise<number> {
  // Nothing on stderr drives the terminal: an error body, a message, a usage error quoting argv.
  // A write to stdout that fails ends the command where it is (the rest of a walk is not fetched).
  const io: IO = {
    ...terminal,
    stdout: (text) => {
      try {
        terminal.stdout(text);
      } catch (error) {
        throw new OutputFailed(error);
      }
    },
    stderr: (text) => terminal.stderr(escapeControls(text)),
  };
  try {
    return await dispatch([...argv], io);
  } catch (error) {
    if (error instanceof UsageError) {
      const help = ['marketplace', ...error.help, '--help'].join(' ');
      io.stderr(`marketplace: ${error.message}\nRun \`${help}\` for usage.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof Interrupted) return EXIT_INTERRUPTED;
    if (error instanceof OutputFailed) {
      io.stderr(`marketplace: ${error.message}\n`);
      return EXIT_FAILED;
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
  // `marketplace help [words…]` is `marketplace [words…] --help`.
  if (argv[0] === 'help' && !tree.children.has('help')) argv = [...argv.slice(1), '--help'];
  // Walk the command words down the tree; the rest are ids and options. A global option between
  // two words (`organizations -o table list`) goes after them too: it may go anywhere.
  let node = tree;
  const words: string[] = [];
  while (!node.op) {
    argv = hoistGlobalOptions(argv);
    const word = argv[0];
    if (word === undefined || word.startsWith('-') || !node.children.has(word)) break;
    argv.shift();
    words.push(word);
    node = node.children.get(word) as Node;
  }
  const first = words[0] ?? argv[0];
  // `--version` answers on any level, `auth` and `completion` too (`auth logout -v` logs nothing out).
  if (words.length === 0 && (first === 'auth' || first === 'completion') && asksVersion(argv)) {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }
  if (words.length === 0 && first === 'auth') return within(['auth'], () => auth(argv.slice(1), io));
  if (words.length === 0 && first === 'completion')
    return within(['completion'], () => completion(argv.slice(1), io));
  if (!node.op) {
    const asked = argv.includes('--help') || argv.includes('-h');
    // A word that is no command here is a usage error, `--help` after it or not.
    if (argv[0] !== undefined && !argv[0].startsWith('-'))
      throw pointTo(words, unknownCommand(words, argv[0], node));
    if (asksVersion(argv)) {
      io.stdout(`${VERSION}\n`);
      return EXIT_OK;
    }
    if (asked || (argv.length === 0 && words.length > 0) || (argv.length === 0 && words.length === 0)) {
      const text = groupHelp(words, node);
      if (asked) io.stdout(text);
      else io.stderr(text);
      return asked ? EXIT_OK : EXIT_USAGE;
    }
    // Only global options and no command (`marketplace organizations --output json`): they are
    // right, what is missing is the command.
    if (isGlobalOption(argv[0] as string)) throw pointTo(words, missingCommand(words, node));
    // An option before any command: only the global ones go there.
    throw pointTo(
      words,
      new UsageError(
        `unknown option ${argv[0]}.${didYouMean((argv[0] ?? '').replace(/^-+/, ''), Object.keys(globalOptions), '--')}`,
      ),
    );
  }
  const op = node.op;
  return within(op.command, () => runOperation(op, argv, io));
}

/**
 * Runs `run`; a usage error from it points to the `--help` of `words` (the command it is in,
 * `marketplace collabs create --help`), unless it names another already.
 */
async function within(words: readonly string[], run: () => Promise<number> | number): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UsageError) pointTo(words, error);
    throw error;
  }
}

/** `error`, pointing to the `--help` of `words` unless it points elsewhere already. */
function pointTo(words: readonly string[], error: UsageError): UsageError {
  if (error.help.length === 0) error.help = words;
  return error;
}

function operationHelp(op: Operation): string {
  const ids = op.pathParams.map((p) => `<${p}>`).join(' ');
  const fields = fieldsOf(op).filter((f) => !op.pathParams.includes(f.name));
  const lines = [
    `Usage: marketplace ${op.command.join(' ')}${ids ? ` ${ids}` : ''}${fields.length > 0 ? ' [--field value…]' : ''}${op.endpoint.body ? " [--body '{…}' | --body @file | --body @-]" : ''}`,
    '',
    `${op.title}.`,
    // The table's prose (endpointDescription): who may call, what the answer means.
    wrap(op.description, 100).trimEnd(),
    '',
    `${op.endpoint.method} ${op.endpoint.path}.json`,
  ];
  if (op.endpoint.emptyNotFound) lines.push('', 'None set: `null` (JSON) and a line on stderr, exit 0.');
  if (fields.length > 0 || op.kind === 'list' || op.endpoint.idempotent) {
    lines.push('', 'Options:');
    const rows: [string, string][] = fields.map((f) => [
      `${flag(f.name)} <${f.type}>`,
      [
        f.required ? '(required)' : '',
        op.fileFields.includes(f.name) ? 'a file path, or a data: URL' : (f.description ?? ''),
        isOneOrZero(f) ? `(alone: 1; ${flag(`no_${f.name}`)}: 0)` : '',
      ]
        .filter(Boolean)
        .join(' '),
    ]);
    if (op.kind === 'list')
      rows.push(
        ['--all', 'every page (from --page on, when given)'],
        ['--max-items <n>', 'the pages from --page on, up to n items'],
      );
    if (op.endpoint.body)
      rows.push(['--body <json|@file|@->', 'the fields as a JSON object (@-: stdin; the flags win over it)']);
    if (op.endpoint.idempotent)
      rows.push(['--idempotency-key <key>', 'run it once however often it is sent (default: a random key)']);
    const width = Math.max(...rows.map(([r]) => r.length));
    for (const [left, right] of rows) lines.push(`  ${left.padEnd(width)}  ${right}`.trimEnd());
  }
  lines.push('', globalHelp, '');
  return lines.join('\n');
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
    parsed = parseArgs({ args: fieldFlags(argv, fields), options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${op.command.join(' ')}: ${optionError(error, options)}`);
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
    if (values.body === '@-' && values['token-stdin'])
      throw new UsageError(
        '--body @- and --token-stdin both read stdin: give the body from a file or the token another way',
      );
    for (const [name, value] of Object.entries(await readBody(values.body, () => bodyFromStdin(io)))) {
      if (!fields.some((f) => f.name === name))
        throw new UsageError(
          `--body: unknown field "${name}".${didYouMean(
            name,
            fields.map((f) => f.name),
          )}`,
        );
      args[name] = value;
    }
  }
  for (const f of fields) {
    const given = [
      ...((values[flag(f.name).slice(2)] as string[] | undefined) ?? []),
      ...((f.name.includes('_') ? (values[f.name] as string[] | undefined) : undefined) ?? []),
    ];
    // A list takes its flag again (`--countries NO --countries SE`); another field given twice
    // would silently lose a value.
    if (given.length > 1 && !typesOf(f).has('array'))
      throw new UsageError(
        `${op.command.join(' ')}: ${flag(f.name)} is given more than once (${given.join(', ')}); give it once`,
      );
    if (given.length > 0) args[f.name] = coerce(f, given);
  }
  // A purge and a new file of the same field (`--purge-logo 1 --logo FILE`): the server keeps the
  // new file and says nothing of the purge, so the two are not sent together.
  for (const file of op.fileFields) {
    const purge = `purge_${file}`;
    if (args[purge] === '1' && args[file] !== undefined)
      throw new UsageError(
        `${op.command.join(' ')}: ${flag(purge)} 1 removes the ${file.replaceAll('_', ' ')} and ${flag(file)} gives a new one: give one of them (with both, the server keeps the new file)`,
      );
  }
  let maxItems: number | undefined;
  if (values.all && values['max-items'] !== undefined)
    throw new UsageError('give --all or --max-items, not both');
  if (values.all) maxItems = Number.POSITIVE_INFINITY;
  if (typeof values['max-items'] === 'string') {
    maxItems = Number(values['max-items']);
    if (!Number.isInteger(maxItems) || maxItems < 1)
      throw new UsageError('--max-items must be a positive integer');
  }
  const yes = values.yes === true;
  canAsk(op, yes, io);

  const idempotencyKey = values['idempotency-key'];
  if (typeof idempotencyKey === 'string' && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
    throw new UsageError('--idempotency-key must be 1 to 255 printable ASCII characters');

  const { client, from, waited } = await clientOf(values, io);
  if (!(await confirmed(op, positionals, yes, io))) {
    io.stderr('marketplace: not confirmed; nothing was sent\n');
    return EXIT_NOT_CONFIRMED;
  }
  const style = styleOf(values['no-color'], io, output);
  const width = widthOf(io);
  // Pages walked go out as they come (`--all | head` stops the walk), JSON and table alike, and
  // no item is kept once written: a table's columns and widths are those of its first page.
  const streamed =
    op.kind === 'list' && maxItems !== undefined
      ? output === 'json'
        ? jsonArrayWriter(io.stdout)
        : tableWriter(io.stdout, { width, style })
      : undefined;
  // --include's head goes first: a walk's is its first page's, known with that page's items.
  let headWritten = false;
  const writeHead = (response: Response) => {
    if (!values.include || headWritten) return;
    headWritten = true;
    io.stdout(formatHead(response, style));
  };
  try {
    const result = await callOperation(client, op, args, {
      readFile: fileFieldReader(io.env),
      ...(maxItems !== undefined && { maxItems }),
      ...(typeof idempotencyKey === 'string' && { idempotencyKey }),
      ...(streamed && {
        onItems: (items: readonly unknown[], response: Response) => {
          writeHead(response);
          streamed.items(items);
        },
      }),
    });
    const data = op.kind === 'list' ? (result as ListResult).data : result.data;
    if (op.endpoint.emptyNotFound && data === null) io.stderr(`marketplace: ${noneSet(op)}\n`);
    const unread = prefillNotice(op, args, data);
    if (unread) io.stderr(`marketplace: ${unread}\n`);
    if (result.response) writeHead(result.response);
    if (op.kind === 'delete') {
      if (output === 'table') io.stdout('Deleted.\n');
    } else if (streamed) streamed.end();
    else
      io.stdout(
        // JSON.stringify leaves DEL, C1 and the bidi overrides as they are: escaped (`\u202E`), the
        // JSON still parses to the same text, and data cannot drive the terminal.
        output === 'json'
          ? `${escapeControls(JSON.stringify(data, null, 2))}\n`
          : formatTable(data, { width, style }),
      );
    // More pages than printed: the table says so under it, JSON output (which stays parseable) on stderr.
    // A streamed walk's items went out as they came, not into `data`: the writer counted them.
    const count = streamed ? streamed.count() : undefined;
    const more = op.kind === 'list' ? pageNotice(op, result as ListResult, maxItems, count) : undefined;
    // Past the last page: the output stays the empty list; the word why goes to stderr.
    const past = op.kind === 'list' ? pastLastPage(result as ListResult, count) : undefined;
    if (past) io.stderr(`marketplace: ${past}\n`);
    if (more && output === 'table') io.stdout(wrap(more, width, style.dim));
    else if (more) io.stderr(`marketplace: ${more}\n`);
    return EXIT_OK;
  } catch (error) {
    return reportError(requiredNamed(error, fields, args), io, Boolean(values.include), {
      settable: new Set(Object.keys(op.input.shape)),
      call: op,
      from,
      waited: waited(),
      rename: flagOfField(op, new Set(Object.keys(args))),
    });
  }
}

/**
 * A refusal before sending whose field is a required one the command line left out (no flag, not
 * in `--body`) says it is required, as the MCP tools do: the schemas' "can't be blank" is for a
 * value given blank. Any other error is as it was.
 */
function requiredNamed(error: unknown, fields: readonly FieldInfo[], args: Record<string, unknown>): unknown {
  if (!(error instanceof RequestValidationError)) return error;
  const left = (name: string) =>
    args[name] === undefined && fields.some((f) => f.name === name && f.required);
  const errors = Object.fromEntries(
    Object.entries(error.errors).map(([name, messages]) => [name, left(name) ? ['is required'] : messages]),
  );
  return Object.keys(errors).some(left) ? new RequestValidationError(errors) : error;
}

/** A list written page by page as the walk reaches each (`callOperation`'s `onItems`), keeping no item. */
interface ItemWriter {
  items: (items: readonly unknown[]) => void;
  /** What closes the list, once every page is in (not after an error). */
  end: () => void;
  /** The items written. */
  count: () => number;
}

/**
 * A list's JSON written page by page: the same bytes as `JSON.stringify(items, null, 2)` once
 * every page is in, each page as soon as it is. An error on a later page leaves the array unclosed
 * (and the exit status non-zero): a reader never takes a cut-short list for the whole one.
 */
function jsonArrayWriter(write: (text: string) => void): ItemWriter {
  let count = 0;
  return {
    items: (items: readonly unknown[]) => {
      let text = '';
      for (const item of items)
        text += `${count++ === 0 ? '[\n' : ',\n'}  ${JSON.stringify(item ?? null, null, 2).replace(/\n/g, '\n  ')}`;
      // As for the whole array below: data cannot drive the terminal.
      if (text !== '') write(escapeControls(text));
    },
    end: () => write(count === 0 ? '[]\n' : '\n]\n'),
    count: () => count,
  };
}

/**
 * A list's table written page by page: the header and the first page's rows as soon as that page
 * is in, then each page's rows as it comes. The columns and their widths are the first page's
 * (fitted to the terminal as a one-page table is; a walk of one page prints what `formatTable`
 * does), as the rows are not kept to fit all of them: a later cell wider than its column takes
 * the room its line has left, then is cut (table.ts `renderGrid`); a field no first-page item has is
 * no column, and is named under the table with those left out for want of room (`--output json`
 * shows every field). An error on a later page leaves the rows printed and nothing under them.
 */
function tableWriter(write: (text: string) => void, layout: Layout): ItemWriter {
  let table: ListTable | undefined;
  let count = 0;
  // Names only: the fields first seen after the first page, for the line under the table.
  const later = new Set<string>();
  return {
    items: (page) => {
      if (page.length === 0) return;
      const items = page as Record<string, unknown>[];
      if (table) for (const name of laterFields(items, table)) later.add(name);
      const header = table === undefined;
      table ??= listTable(items, layout);
      write(listRows(items, table, header));
      count += items.length;
    },
    end: () => {
      const under = table ? notShown(table, [...later]) : formatTable([], layout);
      if (under !== '') write(under);
    },
    count: () => count,
  };
}

/**
 * A collab create's `--query-website` whose page could not be read: the API still creates the
 * draft, from the defaults (decisions.md: any failure of the prefill), and its answer alone looks
 * like a success, so the CLI says why the draft is not prefilled. A prefilled draft has the
 * page's URL as `website`; one from the defaults has none.
 */
function prefillNotice(op: Operation, args: Record<string, unknown>, data: unknown): string | undefined {
  const name = Object.entries(op.queryNames).find(([, wire]) => wire === 'website')?.[0];
  const page = name === undefined ? undefined : args[name];
  if (typeof page !== 'string' || typeof data !== 'object' || data === null) return undefined;
  if ((data as { website?: unknown }).website !== null) return undefined;
  return `${flag(name as string)} ${page}: the page could not be read for the prefill (refused as a private or local address, no answer within 3 s, not an HTML page, or one without a title or Open Graph tags), so the draft has the defaults; set its fields with \`collabs update\``;
}

/**
 * The flag of a field named in an error: the API names a query parameter and a body field alike
 * (`website`), the CLI has a flag for each (`--query-website`, `--website`). The one the user
 * gave; both when both were given; the body field's when neither was (a required one left out).
 * A name that is no field (`base`) stays as it is.
 */
function flagOfField(op: Operation, given: ReadonlySet<string>): (field: string) => string {
  return (field) => {
    const flat = [
      ...(op.bodyFields.includes(field) ? [field] : []),
      ...Object.entries(op.queryNames)
        .filter(([, wire]) => wire === field)
        .map(([name]) => name),
    ];
    if (flat.length === 0) return field;
    const typed = flat.filter((name) => given.has(name));
    return (typed.length > 0 ? typed : flat.slice(0, 1)).map(flag).join(' or ');
  };
}

/**
 * What an endpoint whose empty 404 means "none" (`me address retrieve`) says when there is none:
 * plainly, on stderr, with the command that sets one. It is an answer, not an error: exit 0, and
 * JSON output is `null`.
 */
function noneSet(op: Operation): string {
  const what = op.command[op.command.length - 2] ?? 'value';
  const setter = [...op.command.slice(0, -1), 'update'];
  let node: Node | undefined = tree;
  for (const word of setter) node = node?.children.get(word);
  return `No ${what} is set${node?.op ? ` (\`marketplace ${setter.join(' ')}\` sets one)` : ''}`;
}

/**
 * `--body @-`: all of stdin, when it is a pipe or a file. A terminal is refused (its reader would
 * be the hidden token prompt): pipe the JSON in, or use `@file`.
 */
async function bodyFromStdin(io: IO): Promise<string> {
  if (io.stdinIsTTY) throw new UsageError('--body @-: stdin is a terminal; pipe the JSON in, or give @file');
  return io.readStdin();
}

/** `--version` or `-v` among the words (before a `--`, after which words are values). */
function asksVersion(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  return options.includes('--version') || options.includes('-v');
}

/** A confirmation answered no: nothing was done. */
const EXIT_NOT_CONFIRMED = 1;

/**
 * A file field's reader: a path that cannot be read, or a file longer than the API takes (the
 * server's `MARKETPLACE_MAX_UPLOAD_BYTES`, read from the same variable here: 5 MiB unless set), is
 * a usage error on that flag (exit 2), before anything is sent.
 */
function fileFieldReader(env: NodeJS.ProcessEnv): FileReader {
  return async (value, field) => {
    // Not a file named "" that is missing: no value (`--logo ""`, an unset variable in `--logo "$F"`).
    if (value === '') throw new UsageError(`${flag(field)} is empty: give a file path or a data: URL`);
    // Read only where a file is: a command that reads none does not fail on the variable.
    const setting = env.MARKETPLACE_MAX_UPLOAD_BYTES;
    if (setting !== undefined && setting !== '' && !/^[1-9]\d{0,15}$/.test(setting))
      throw new UsageError(`MARKETPLACE_MAX_UPLOAD_BYTES must be a number of bytes (got ${setting})`);
    const read = fileValueReader({ maxBytes: setting ? Number(setting) : DEFAULT_MAX_UPLOAD_BYTES });
    try {
      return await read(value, field);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === undefined) throw error;
      throw new UsageError(`${flag(field)}: cannot read ${value}: ${fileProblem(error)}`);
    }
  };
}

export { configPath, type IO, type Node as CommandNode };
