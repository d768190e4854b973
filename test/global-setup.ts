// Once per test run: Apache Kafka 4.4's jars (the reference broker, its tools and clients) are in place
// before any test looks for them (scripts/kafka-jars.mjs fetches them with Maven when the pom changed).
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/kafka-jars.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
