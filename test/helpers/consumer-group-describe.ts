// ConsumerGroupDescribe (69) of one KIP-848 group over a connection of its own: what the coordinator holds.
import type { ConsumerGroupDescribeResponse, DescribedGroup } from '../../protocol/generated/ConsumerGroupDescribeResponse.js';
import { WireClient } from '../../bench/lib/wire-client.js';

export async function describeConsumerGroup(port: number, groupId: string): Promise<DescribedGroup> {
  const client = await WireClient.connect(port);
  try {
    const res = await client.send<ConsumerGroupDescribeResponse>(69, 0, { groupIds: [groupId], includeAuthorizedOperations: false });
    return res.groups[0]!;
  } finally {
    client.socket.destroy();
  }
}
