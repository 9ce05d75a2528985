/**
 * What a model reads about converse (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const converseDescription = 'Say something to the person and get their reply. Interactive mode only: refused in headless runs.';
