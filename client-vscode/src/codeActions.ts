/**
 * The server's command actions (kind `source.codequorum`: Compare, Run, Regenerate, Clear,
 * Show Report on the function) are its way in for editors without this extension's UI.
 * Here the lenses, the palette and the status bar reach every command, so they are left
 * out unless `codequorum.codeAction.commands` is "always".
 */

/** The kind of the server's command actions. */
export const COMMAND_ACTION_KIND = 'source.codequorum';

/** True for an action of the kind `source.codequorum` (or one below it). */
export function isCommandAction(action: unknown): boolean {
  const kind = (action as { kind?: unknown } | null)?.kind;
  const value = typeof kind === 'string' ? kind : (kind as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' && (value === COMMAND_ACTION_KIND || value.startsWith(`${COMMAND_ACTION_KIND}.`));
}

/** The server's code actions this extension shows: all with `mode` "always", else all but the command actions. */
export function shownCodeActions<T>(actions: T[] | null | undefined, mode: unknown): T[] | null | undefined {
  if (!actions || mode === 'always') {
    return actions;
  }
  return actions.filter((action) => !isCommandAction(action));
}
