// The side-by-side figures of the peer benches (issue 32): one value per broker per round, reduced to
// medians and a ratio kafkite ÷ Kafka 4.4, in the shape run-all's summary and bench/peer-report.ts read.
import type { Broker } from './peer-broker.js';
import { median, round } from './stats.js';

export interface Figure {
  figure: string;
  kafkite: number;
  kafka: number;
  /** kafkite ÷ Kafka: above 1 is kafkite faster for a rate, below 1 is kafkite cheaper for CPU, RSS, time, latency. */
  ratio: number;
}

/** Per round, each broker's value. */
export type PerRound = Array<Record<Broker, number>>;

/** Each round's value of either broker, from rows of both (a round that lacks one broker's row is left out). */
export function roundPairs<R extends { round: number; broker: Broker }>(rows: R[], value: (row: R) => number): PerRound {
  const byRound = new Map<number, Partial<Record<Broker, number>>>();
  for (const row of rows) byRound.set(row.round, { ...byRound.get(row.round), [row.broker]: value(row) });
  return [...byRound.values()].filter((pair): pair is Record<Broker, number> => pair.kafkite !== undefined && pair.kafka !== undefined);
}

/** Medians of the rounds' values; the ratio is the median of the per-round ratios (the load on a shared machine moves between rounds). */
export function figureOf(figure: string, rounds: PerRound, digits = 0): Figure {
  return {
    figure,
    kafkite: round(median(rounds.map((r) => r.kafkite)), digits),
    kafka: round(median(rounds.map((r) => r.kafka)), digits),
    ratio: round(median(rounds.map((r) => r.kafkite / r.kafka)), 3),
  };
}

/** One figure from single values (a start, a peak). */
export function figureOfValues(figure: string, kafkite: number, kafka: number, digits = 0): Figure {
  return { figure, kafkite: round(kafkite, digits), kafka: round(kafka, digits), ratio: round(kafkite / kafka, 3) };
}
