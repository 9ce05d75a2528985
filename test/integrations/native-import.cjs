// Node's own import() (this file is loaded by Node's require, which vitest's module transform does not touch):
// for compiled JavaScript a test runs in its own process (./cli-in-process.ts).
'use strict';
module.exports = (url) => import(url);
