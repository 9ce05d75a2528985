/**
 * What a model reads about list_files (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const listFilesDescription = 'List files and folders of the workspace (folders end with "/"), skipping what .gitignore ignores. Paths are relative to the workspace root; use them as-is with read_file and edit_file.';
