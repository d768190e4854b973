// `node --import` this into a broker process (startBroker's nodeArgs) to give the share group coordinator and the
// share partitions one in-memory Persister, until the share coordinator on __share_group_state is wired on main.
// Test-only: src has no fallback.
import { MergingMemoryPersister } from './merging-memory-persister.ts';

const { Broker } = await import('../../dist/src/broker.js');
const open = Broker.open;
Broker.open = async function (...args: Parameters<typeof open>) {
  const broker = await open.apply(this, args);
  if (!broker.sharePartitions.persister) {
    const persister = new MergingMemoryPersister();
    broker.sharePartitions.persister = persister;
    broker.groupCoordinator.shareGroups.persister ??= persister;
  }
  return broker;
};
