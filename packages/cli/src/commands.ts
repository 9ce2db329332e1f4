/**
 * The command tree, generated from `@app/sdk/operations` (no command is written by hand): its
 * words, a group's help, and what a mistyped word was probably meant to be.
 */
import { type Operation, operations } from '@app/sdk/operations';
import { didYouMean, globalHelp, UsageError } from './arguments.js';

/** The command tree: `me` → `social-accounts` → `list` → operation. */
export interface Node {
  children: Map<string, Node>;
  op?: Operation;
}

export const tree: Node = { children: new Map() };
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

/** The commands that are not endpoints. */
export const builtins: Record<string, string> = {
  auth: 'Log in (store a token), show the login status, log out',
  completion: 'Print the bash or zsh completion script',
  help: 'Help for the words after it (`marketplace help collabs list` is `… collabs list --help`)',
};

export function groupHelp(words: string[], node: Node): string {
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

/** The commands under `words`: the node's, and at the top the built-in ones (`auth`, `help`…). */
const commandsUnder = (words: string[], node: Node): string[] => [
  ...node.children.keys(),
  ...(words.length === 0 ? Object.keys(builtins) : []),
];

/** Options but no command under `words`: a usage error naming the commands there. */
export function missingCommand(words: string[], node: Node): UsageError {
  const known = commandsUnder(words, node);
  const usage = ['marketplace', ...words, '<command>'].join(' ');
  return new UsageError(`missing command: ${usage}, one of ${known.join(', ')}`);
}

/** `word` is not a command under `words`: a usage error naming the nearest ones. */
export function unknownCommand(words: string[], word: string, node: Node): UsageError {
  const known = commandsUnder(words, node);
  const prefix = words.length > 0 ? `${words.join(' ')} ` : '';
  return new UsageError(`unknown command "${prefix}${word}".${didYouMean(word, known, prefix)}`);
}
