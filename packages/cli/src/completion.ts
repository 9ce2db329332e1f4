/** Shell completion: the scripts ask `marketplace __complete <words…>` for the next words. */
import type { Operation } from '@app/sdk/operations';
import { EXIT_OK, UsageError } from './arguments.js';
import type { IO } from './output.js';

interface Node {
  children: Map<string, Node>;
  op?: Operation;
}

/** Candidates after the given words (the last one may be a partial word). */
export function completions(tree: Node, builtins: Record<string, string>, words: string[]): string[] {
  const done = words.slice(0, -1);
  const partial = words[words.length - 1] ?? '';
  let node = tree;
  for (const word of done) {
    if (word.startsWith('-') || node.op) break;
    const child = node.children.get(word);
    if (!child)
      return done[0] === 'auth' && done.length === 1 ? filter(['login', 'status', 'logout'], partial) : [];
    node = child;
  }
  if (node.op) {
    const op = node.op;
    const fields = Object.keys(op.input.shape).filter((name) => !op.pathParams.includes(name));
    const flags = [
      ...fields.map((f) => `--${f.replaceAll('_', '-')}`),
      ...(op.endpoint.body ? ['--body'] : []),
      ...(op.kind === 'list' ? ['--all', '--max-items'] : []),
      ...(op.kind === 'delete' || op.kind === 'transition' ? ['--yes'] : []),
      '--output',
      '--include',
      '--no-color',
      '--help',
    ];
    return partial.startsWith('-') ? filter(flags, partial) : [];
  }
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
  io.stdout(completionScript(shell));
  return EXIT_OK;
}
