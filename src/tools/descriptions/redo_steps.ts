/**
 * What a model reads about redo_steps (opencode's habit: the description beside the tool, in a file of its own; a .ts
 * module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const redoDescription = 'Put back what the last undo took away (all of it, when it undid several steps as one); with session or to, redo undo after undo until that session or step is back.';
