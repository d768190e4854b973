// Test certificates live with the benches (which need them too): see bench/lib/certs.ts.
export * from '../../bench/lib/certs.js';
