// The console front end: built into dist/console, which the admin listener serves under /.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: `${here}../dist/console`, emptyOutDir: true, chunkSizeWarningLimit: 400 },
});
