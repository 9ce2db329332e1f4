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

/** Asks on the terminal; true when the answer is y or yes. */
export async function confirmed(op: Operation, ids: string[], yes: boolean, io: IO): Promise<boolean> {
  if (!asks(op) || yes || !io.readLine) return true;
  const command = ['marketplace', ...op.command, ...ids].join(' ');
  const answer = await io.readLine(escapeControls(`${op.title}: ${command}? [y/N] `));
  return /^\s*y(es)?\s*$/i.test(answer);
}
