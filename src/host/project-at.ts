/**
 * The door for a route that starts from a folder and no config yet (a
 * client's hook, the guarded shell, an MCP call from a hook): the one loader
 * (layers, trust; an untrusted loosening refuses here), then `openProject`, so
 * such a route opens exactly the Project the CLI and the MCP server open. A module of its own so that the CLI's commands, which
 * read their config through `loadProjectConfigFast` (no schema library when
 * there is no file to validate), do not load the loader with `openProject`.
 */
import { loadProjectConfig } from '../config/load.js';
import { defined } from '../defined.js';
import { openProject, type OpenProjectOptions, type Project } from './project.js';

/** `configFile`: an explicit `--config` (absolute), loaded instead of the default name and protected with it. */
/** `nestedSearch`: the warm nested-repository search of a process that opens the project again and again (workspace/policy.ts). */
export function openProjectAt(root: string, options: { configFile?: string | undefined; nestedSearch?: OpenProjectOptions['nestedSearch'] } = {}): Project {
  const { config, trust, layers } = loadProjectConfig(root, options.configFile);
  return openProject(root, config, { trust, layers, ...defined({ configFiles: options.configFile === undefined ? undefined : [options.configFile], nestedSearch: options.nestedSearch }) });
}
