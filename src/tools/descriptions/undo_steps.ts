/**
 * What a model reads about undo_steps (opencode's habit: the description beside the tool, in a file of its own; a .ts
 * module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const undoDescription =
  'Undo recorded steps as ONE step: the newest step by default; every step of a client session (session: its id, or "last"); or a step and every later one (to: its step id). Files changed since a step are refused (E_CHANGED_SINCE) unless force. One redo_steps puts it all back. See undo_list for the ids.';
