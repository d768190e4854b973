#!/usr/bin/env node
// fdatasync group commits and zero-copy sends share libuv's thread pool; its default of 4 is too few.
process.env.UV_THREADPOOL_SIZE ??= '16';
const { main } = await import('../dist/src/cli.js');

main(process.argv.slice(2));
