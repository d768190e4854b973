// Kafka's share-group metrics (KIP-932) in Prometheus form, read from the broker at scrape time:
// group-coordinator-metrics group-count{protocol} and share-group-count{state} (GroupCoordinatorMetrics).
import { Gauge, type Registry } from 'prom-client';
import type { Broker } from '../broker.js';

/** Share groups' states as ShareGroup.ShareGroupState names them; each is reported, 0 when none. */
const SHARE_GROUP_STATES = ['Empty', 'Stable', 'Dead'];

export function registerShareGroupGauges(broker: Broker, registers: Registry[]): void {
  const listed = () => broker.groupCoordinator.listGroups([], []).groups;
  new Gauge({
    name: 'kafkite_group_count',
    help: "Groups per protocol: classic, consumer, share, streams (Kafka's group-count{protocol}).",
    labelNames: ['protocol'],
    registers,
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const g of listed()) counts.set(g.groupType, (counts.get(g.groupType) ?? 0) + 1);
      for (const [protocol, n] of counts) this.set({ protocol }, n);
    },
  });
  new Gauge({
    name: 'kafkite_share_group_count',
    help: "Share groups per state (Kafka's share-group-count{state}).",
    labelNames: ['state'],
    registers,
    collect() {
      const counts = new Map(SHARE_GROUP_STATES.map((s) => [s, 0]));
      for (const g of listed()) if (g.groupType === 'share') counts.set(g.groupState, (counts.get(g.groupState) ?? 0) + 1);
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
}
