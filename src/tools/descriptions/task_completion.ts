/**
 * What a model reads about task_completion (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const taskCompletionDescription = 'Call once when the task is finished (or cannot be finished): give a short summary of the changes, how they were verified, and what is left. Ends the run; no tool call after it runs.';
