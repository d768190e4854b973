// queued.max.request.bytes accounting (src/network/request-memory-pool.ts) and the fault-injection spec parser.
import { describe, expect, it } from 'vitest';
import { RequestMemoryPool } from '../../src/network/request-memory-pool.js';
import { FaultInjectionConfigError, parseFault } from '../../storage/fault-injection.js';

describe('RequestMemoryPool', () => {
  it('admits any request while memory is left (not strict, as Kafka), then queues in arrival order', () => {
    const pool = new RequestMemoryPool(100);
    const granted: string[] = [];
    expect(pool.reserve(60, () => granted.push('a'))).toBe(true);
    expect(pool.reserve(500, () => granted.push('b'))).toBe(true); // 40 left: admitted, pool now at -460
    expect(pool.reserve(1, () => granted.push('c'))).toBe(false);
    expect(pool.reserve(1, () => granted.push('d'))).toBe(false);
    pool.release(60);
    expect(granted).toEqual([]);
    pool.release(500);
    expect(granted).toEqual(['c', 'd']);
  });

  it('does not let a newcomer overtake connections already waiting', () => {
    const pool = new RequestMemoryPool(10);
    expect(pool.reserve(10, () => {})).toBe(true);
    const granted: string[] = [];
    expect(pool.reserve(5, () => granted.push('waiting'))).toBe(false);
    pool.release(3);
    expect(granted).toEqual(['waiting']);
    expect(pool.reserve(1, () => granted.push('late'))).toBe(false);
  });

  it('forgets a waiter whose connection closed', () => {
    const pool = new RequestMemoryPool(10);
    pool.reserve(10, () => {});
    const gone = () => granted.push('gone');
    const granted: string[] = [];
    pool.reserve(5, gone);
    pool.reserve(5, () => granted.push('next'));
    pool.cancel(gone);
    pool.release(10);
    expect(granted).toEqual(['next']);
  });

  it('is unbounded at -1, Kafka\'s default', () => {
    const pool = new RequestMemoryPool(-1);
    for (let i = 0; i < 10; i++) expect(pool.reserve(2 ** 30, () => {})).toBe(true);
  });
});

describe('KAFKITE_FAULT_INJECTION', () => {
  it('parses <path-prefix>:<ERRNO>[:<bytes>]', () => {
    expect(parseFault(undefined)).toBeNull();
    expect(parseFault('/data/b/:ENOSPC:4096')).toEqual({ prefix: '/data/b/', code: 'ENOSPC', bytesLeft: 4096 });
    expect(parseFault('/data/b/:EIO')).toEqual({ prefix: '/data/b/', code: 'EIO', bytesLeft: 0 });
  });

  it('refuses a malformed spec or an unknown errno', () => {
    expect(() => parseFault('/data/b')).toThrow(FaultInjectionConfigError);
    expect(() => parseFault('/data/b/:ENOTANERRNO')).toThrow(FaultInjectionConfigError);
  });
});
