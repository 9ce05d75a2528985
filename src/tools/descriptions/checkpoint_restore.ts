/**
 * What a model reads about checkpoint_restore (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const checkpointRestoreDescription = [
  'Put the workspace back exactly as a checkpoint recorded it (files written since are put back, files created since are removed).',
  'A safety checkpoint of the current state is taken first; its id is in the result, so a restore can itself be undone.',
].join(' ');
