/**
 * What a model reads about undo_list (opencode's habit: the description beside the tool, in a file of its own; a .ts
 * module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const undoListDescription =
  "The undo history, newest first, grouped by client session (the client's name and session id) or run: each step's id, kind, label and files, and whether it is undone. Pass a session id to undo_steps (session) or a step id to undo_steps (to).";
