/**
 * A search thread of searchFilesParallel: receives chunks of file paths,
 * searches them, posts the matches back. Read-only, like the search itself.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { searchFileList, type PortableQuery } from './search.js';

const { root, query } = workerData as { root: string; query: PortableQuery };

parentPort?.on('message', (msg: { id: number; files: string[] }) => {
  parentPort?.postMessage({ id: msg.id, out: searchFileList(root, msg.files, query) });
});
