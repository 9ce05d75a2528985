/**
 * What a model reads about detect (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const detectDescription = 'Detect what kind of project this is (cmake, cargo, go, node, typescript, python, make…) and the build and test commands `verify` would run. Reads files only.';
