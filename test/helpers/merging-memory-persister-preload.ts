// `node --import` this into a broker process (startBroker's nodeArgs) to give its share partitions the in-memory
// Persister, until the share coordinator on __share_group_state is wired on main. Test-only: src has no fallback.
import { MergingMemoryPersister } from './merging-memory-persister.ts';

const { Broker } = await import('../../dist/src/broker.js');
const open = Broker.open;
Broker.open = async function (...args: Parameters<typeof open>) {
  const broker = await open.apply(this, args);
  if (!broker.sharePartitions.persister) {
    // No share group coordinator on main yet to initialize the state before a fetch: reading does it.
    const persister = new MergingMemoryPersister();
    persister.initializeOnRead = true;
    broker.sharePartitions.persister = persister;
  }
  return broker;
};
