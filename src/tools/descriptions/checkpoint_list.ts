/**
 * What a model reads about checkpoint_list (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const checkpointListDescription = "List the workspace's checkpoints, newest first: id, name, scope, time, number of files and why it was taken (manual, before a transaction, or the safety checkpoint a restore leaves).";
