/**
 * What a model reads about search_files (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const searchFilesDescription =
  'Search the workspace files for text (or a regex with regex: true); returns path:line:text for each matching line, skipping ignored and binary files. Use it to find where something is defined or used before editing; then read_file the lines around the match.';
