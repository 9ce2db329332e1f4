/** Deletes and transitions ask first in a terminal; elsewhere they need `--yes`. */
import type { Operation } from '@app/sdk/operations';
import { UsageError } from './arguments.js';
import type { IO } from './output.js';
import { escapeControls } from './table.js';

/** A delete, or a transition (submit, pause, unpause, publish, resume). */
export const asks = (op: Operation) => op.kind === 'delete' || op.kind === 'transition';

/**
 * Before anything is read or sent: without `--yes` an operation that asks needs a terminal to ask
 * on (stdin a terminal), else it is a usage error.
 */
export function canAsk(op: Operation, yes: boolean, io: IO): void {
  if (!asks(op) || yes) return;
  if (io.stdinIsTTY && io.readLine) return;
  throw new UsageError(
    `${op.command.join(' ')} asks for confirmation and stdin is not a terminal: pass --yes (-y) to go ahead`,
  );
}

/**
 * What revoking the token in use would do, said when a token is revoked: the API keeps no token's
 * value and does not say which token a request came with, so the CLI cannot tell whether this is
 * the one it uses (the MCP server's question says the same).
 */
const REVOKES_OWN_TOKEN: Readonly<Record<string, string>> = {
  me_access_tokens_delete:
    ' If it is the token this command uses, later commands with it fail (401) (the API does not say which token is in use).',
};

/** Asks on the terminal; true when the answer is y or yes. */
export async function confirmed(op: Operation, ids: string[], yes: boolean, io: IO): Promise<boolean> {
  if (!asks(op) || yes || !io.readLine) return true;
  const command = ['marketplace', ...op.command, ...ids].join(' ');
  const warning = REVOKES_OWN_TOKEN[op.toolName] ?? '';
  const answer = await io.readLine(escapeControls(`${op.title}: ${command}?${warning} [y/N] `));
  return /^\s*y(es)?\s*$/i.test(answer);
}
