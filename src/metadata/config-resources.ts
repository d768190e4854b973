// Config resource types as Kafka numbers them (ConfigResource.Type), shared by the config APIs.
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;
