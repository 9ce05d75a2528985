/**
 * What a model reads about checkpoint_create (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const checkpointCreateDescription = [
  'Take a checkpoint: a snapshot of every non-ignored file of the workspace (or just `paths`) that checkpoint_restore puts back exactly — bytes, file modes, and files created since removed.',
  'Take one before a risky series of edits; it is cheap (unchanged files are shared with earlier checkpoints). Returns its id.',
].join(' ');
