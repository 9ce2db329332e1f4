/** Shell completion: the scripts ask `marketplace __complete <words…>` for the next words. */
import type { Operation } from '@app/sdk/operations';
import * as z from 'zod';
import { EXIT_OK, globalOptionOf, UsageError } from './arguments.js';
import type { IO } from './output.js';

interface Node {
  children: Map<string, Node>;
  op?: Operation;
}

/**
 * The values a field takes when they are a few named ones (an enum, a boolean, a list of either),
 * else none; `list`: the field is a list (comma-separated on the command line).
 */
function valuesOf(schema: z.ZodType): { values: string[]; list: boolean } {
  interface Json {
    enum?: unknown[];
    type?: unknown;
    anyOf?: Json[];
    items?: Json;
  }
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const named = (option: Json): string[] => {
    if (option.enum) return option.enum.map(String);
    if (option.type === 'boolean') return ['true', 'false'];
    if (option.items) return named(option.items);
    for (const variant of option.anyOf ?? []) {
      const values = named(variant);
      if (values.length > 0) return values;
    }
    return [];
  };
  const list = (option: Json): boolean => option.type === 'array' || (option.anyOf ?? []).some(list);
  return { values: named(json), list: list(json) };
}

/** Options every command takes, as completion offers them (`--token`, which warns, is left out). */
const GLOBAL_FLAGS = [
  '--output',
  '--include',
  '--yes',
  '--no-color',
  '--base-url',
  '--timeout',
  '--max-retries',
  '--token-stdin',
  '--help',
  '--version',
];

/** Candidates after the given words (the last one may be a partial word). */
export function completions(tree: Node, builtins: Record<string, string>, words: string[]): string[] {
  // `--flag=` and a value: zsh gives it as one word (the candidates keep the `--flag=`); bash splits
  // it at `=` into `--flag`, `=`, value.
  const joined = /^(--[a-z][a-z0-9_-]*)=(.*)$/s.exec(words[words.length - 1] ?? '');
  if (joined) {
    const [, name = '', value = ''] = joined;
    return completions(tree, builtins, [...words.slice(0, -1), name, value]).map((v) => `${name}=${v}`);
  }
  if (words[words.length - 2] === '=') words = [...words.slice(0, -2), words[words.length - 1] ?? ''];
  const done = words.slice(0, -1);
  const partial = words[words.length - 1] ?? '';
  // `help collabs l…`: the command words of what it helps with, as at the top; not their flags.
  if (done[0] === 'help') {
    const { help: _help, ...others } = builtins;
    return completions(tree, others, words.slice(1)).filter((word) => !word.startsWith('-'));
  }
  let node = tree;
  const previous = done[done.length - 1];
  if (previous === '--output' || previous === '-o') return filter(['json', 'table'], partial);
  for (let i = 0; i < done.length && !node.op; i++) {
    const word = done[i] as string;
    // A global option (and its value) may come before or between the command words, as the CLI
    // takes it (`marketplace -o table organizations list`).
    const option = globalOptionOf(word);
    if (option) {
      if (option.type === 'string' && !word.includes('=')) i++;
      continue;
    }
    if (word.startsWith('-')) break;
    const child = node.children.get(word);
    if (!child) {
      if (done.length === 1 && done[0] === 'auth') return filter(['login', 'status', 'logout'], partial);
      if (done.length === 1 && done[0] === 'completion') return filter(['bash', 'zsh'], partial);
      return [];
    }
    node = child;
  }
  if (node.op) {
    const op = node.op;
    const fields = Object.keys(op.input.shape).filter((name) => !op.pathParams.includes(name));
    const flagOf = (field: string) => `--${field.replaceAll('_', '-')}`;
    // The value of a flag whose field takes one of a few values (`--privacy-setting <TAB>`).
    const field = fields.find((f) => previous === flagOf(f) || previous === `--${f}`);
    if (field) {
      const { values, list } = valuesOf(op.input.shape[field] as z.ZodType);
      if (!list || !partial.includes(',')) return filter(values, partial);
      // A list's next item (`--platform-ids youtube,<TAB>`): the items given are kept and not offered again.
      const given = partial.slice(0, partial.lastIndexOf(',') + 1);
      const taken = new Set(given.split(','));
      return filter(
        values.filter((value) => !taken.has(value)).map((value) => `${given}${value}`),
        partial,
      );
    }
    const flags = [
      ...fields.map(flagOf),
      ...(op.endpoint.body ? ['--body'] : []),
      ...(op.endpoint.idempotent ? ['--idempotency-key'] : []),
      ...(op.kind === 'list' ? ['--all', '--max-items'] : []),
      ...GLOBAL_FLAGS,
    ];
    return partial.startsWith('-') ? filter(flags, partial) : [];
  }
  if (partial.startsWith('-')) return filter(GLOBAL_FLAGS, partial);
  const names = [...node.children.keys(), ...(node === tree ? Object.keys(builtins) : [])];
  return filter(names, partial);
}

const filter = (names: string[], partial: string) => names.filter((n) => n.startsWith(partial));

export function completionScript(shell: 'bash' | 'zsh'): string {
  if (shell === 'bash')
    return `# bash completion for marketplace: eval "$(marketplace completion bash)"
_marketplace() {
  local IFS=$'\\n'
  COMPREPLY=($(marketplace __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _marketplace marketplace
`;
  return `#compdef marketplace
# zsh completion for marketplace: eval "$(marketplace completion zsh)", or save as _marketplace in $fpath
_marketplace() {
  local -a candidates
  candidates=("\${(@f)$(marketplace __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -- "\${candidates[@]}"
}
if [[ -n \${ZSH_VERSION-} ]]; then compdef _marketplace marketplace; fi
`;
}

/** `marketplace completion bash|zsh`. */
export function completion(argv: string[], io: IO): number {
  const shell = argv[0];
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(
      'Usage: marketplace completion bash|zsh\n\n  eval "$(marketplace completion bash)"   # in ~/.bashrc\n',
    );
    return EXIT_OK;
  }
  if (shell !== 'bash' && shell !== 'zsh') throw new UsageError('completion: say bash or zsh');
  if (argv.length > 1) throw new UsageError(`completion ${shell}: unexpected "${argv.slice(1).join(' ')}"`);
  io.stdout(completionScript(shell));
  return EXIT_OK;
}
