// A transactional id's Produce requests are verified and appended in the order they arrived, whatever each
// verification waits for (an add applied late, a flush): librdkafka pipelines a transaction's batches on one
// connection, and one appended after the next is OUT_OF_ORDER_SEQUENCE_NUMBER, fatal to the producer.
import { describe, expect, it } from 'vitest';
import { inArrivalOrder } from '../../src/coordinator/transaction/produce-verification.js';
import type { TransactionCoordinator } from '../../src/coordinator/transaction/transaction-coordinator.js';

describe('inArrivalOrder', () => {
  it('holds a produce of the same transactional id until the earlier one is appended, and no other', async () => {
    const coordinator = {} as TransactionCoordinator;
    const appended: string[] = [];
    let release!: () => void;
    const first = inArrivalOrder(coordinator, 'tx', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      appended.push('tx 1');
    });
    const second = inArrivalOrder(coordinator, 'tx', async () => void appended.push('tx 2'));
    await inArrivalOrder(coordinator, 'other', async () => void appended.push('other'));
    await inArrivalOrder(coordinator, null, async () => void appended.push('not transactional'));
    expect(appended).toEqual(['other', 'not transactional']);
    release();
    await Promise.all([first, second]);
    expect(appended).toEqual(['other', 'not transactional', 'tx 1', 'tx 2']);
  });

  it('goes on after a produce that failed', async () => {
    const coordinator = {} as TransactionCoordinator;
    const failed = inArrivalOrder(coordinator, 'tx', async () => {
      throw new Error('storage gone');
    });
    const next = inArrivalOrder(coordinator, 'tx', async () => 'appended');
    await expect(failed).rejects.toThrow('storage gone');
    expect(await next).toBe('appended');
  });
});
