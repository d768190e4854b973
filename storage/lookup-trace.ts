// A record of the steps the read path takes to turn an offset (or a timestamp) into a byte range: the
// code that serves Fetch and ListOffsets takes an optional LookupTrace and notes each step in it, so the
// console and `kafkite lookup` show what really ran, not a re-implementation of it.

/** One segment compared during the floor search over base offsets. */
export interface SegmentProbe {
  slot: number;
  baseOffset: number;
}

/** One index entry read by a binary search: offset index (offset, position) or time index (timestamp, offset). */
export interface IndexProbe {
  slot: number;
  offset: number;
  position?: number;
  timestamp?: number;
}

/** One batch header visited by the forward scan. */
interface ScannedBatch {
  baseOffset: number;
  lastOffset: number;
  position: number;
  size: number;
  maxTimestamp: number;
}

export type LookupStep =
  | { kind: 'segment-floor'; target: number; segments: number; probes: SegmentProbe[]; chosen: number | null; file: string | null }
  | { kind: 'segment-skip'; baseOffset: number; reason: string }
  | { kind: 'time-index'; file: string; entries: number; target: number; probes: IndexProbe[]; found: { slot: number; timestamp: number; offset: number } }
  | {
      kind: 'offset-index';
      file: string;
      entries: number;
      /** 'offset': finding where `target` is; 'range-end': finding the last batch boundary below the fetch limit (a position). */
      purpose: 'offset' | 'range-end';
      target: number;
      probes: IndexProbe[];
      /** slot -1: no entry at or below the target, the scan starts at the segment's beginning. */
      found: { slot: number; offset: number; position: number };
    }
  | { kind: 'scan'; file: string; purpose: 'offset' | 'timestamp' | 'range-end'; from: number; batches: ScannedBatch[]; found: ScannedBatch | null; bytesScanned: number }
  | { kind: 'timestamp-result'; offset: number; timestamp: number }
  | { kind: 'range'; file: string; position: number; length: number; bytesScanned: number };

export class LookupTrace {
  readonly steps: LookupStep[] = [];

  add(step: LookupStep): void {
    this.steps.push(step);
  }

  /** The file range that was handed to sendfile, if the lookup got that far. */
  get range(): Extract<LookupStep, { kind: 'range' }> | undefined {
    return this.steps.find((s): s is Extract<LookupStep, { kind: 'range' }> => s.kind === 'range');
  }

  /** Bytes of log hopped over by every forward scan (header reads only, Kafka's "bounded scan"). */
  get bytesScanned(): number {
    let total = 0;
    for (const s of this.steps) if (s.kind === 'scan') total += s.bytesScanned;
    return total;
  }

  toJSON(): { steps: LookupStep[]; bytesScanned: number } {
    return { steps: this.steps, bytesScanned: this.bytesScanned };
  }
}
