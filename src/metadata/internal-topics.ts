// Kafka's internal topics: marked is_internal in Metadata, refused to Produce and DeleteTopics from clients.
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);
