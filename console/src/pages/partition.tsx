import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import { bytes, time } from '../format';
import { usePoll } from '../hooks';
import { Section, Status } from './common';

interface Segment {
  file: string;
  baseOffset: number;
  lastOffset: number;
  sizeBytes: number;
  firstTimestamp: number;
  maxTimestamp: number;
  offsetIndexEntries: number;
  timeIndexEntries: number;
  bytesPerIndexEntry: number | null;
  active: boolean;
}

interface Detail {
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  lastStableOffset: number;
  sizeBytes: number;
  segments: Segment[];
  next: string[];
}

interface Probe {
  slot: number;
  offset: number;
  position?: number;
  timestamp?: number;
}
interface Batch {
  baseOffset: number;
  lastOffset: number;
  position: number;
  size: number;
}
type Step =
  | { kind: 'segment-floor'; target: number; segments: number; probes: Array<{ slot: number; baseOffset: number }>; chosen: number | null; file: string | null }
  | { kind: 'segment-skip'; baseOffset: number; reason: string }
  | { kind: 'time-index'; file: string; entries: number; target: number; probes: Probe[]; found: { slot: number; timestamp: number; offset: number } }
  | { kind: 'offset-index'; file: string; entries: number; purpose: 'offset' | 'range-end'; target: number; probes: Probe[]; found: { slot: number; offset: number; position: number } }
  | { kind: 'scan'; file: string; purpose: string; from: number; batches: Batch[]; found: Batch | null; bytesScanned: number }
  | { kind: 'timestamp-result'; offset: number; timestamp: number }
  | { kind: 'range'; file: string; position: number; length: number; bytesScanned: number };

interface Lookup {
  offset: number | null;
  logStartOffset: number;
  logEndOffset: number;
  range: { file: string; position: number; length: number } | null;
  bytesScanned: number;
  steps: Step[];
}

const base = (file: string) => file.split('/').pop();

function Timeline({ segments }: { segments: Segment[] }) {
  const total = segments.reduce((s, x) => s + Math.max(x.sizeBytes, 1), 0);
  return (
    <div class="timeline" role="list" aria-label="Segments from oldest to newest, width by size">
      {segments.map((s) => (
        <div
          key={s.baseOffset}
          role="listitem"
          class={s.active ? 'seg active' : 'seg'}
          style={{ flexGrow: Math.max(s.sizeBytes, 1) / total }}
          title={`${s.baseOffset}–${s.lastOffset}, ${bytes(s.sizeBytes)}`}
        >
          <span>{s.baseOffset}</span>
        </div>
      ))}
    </div>
  );
}

function StepView({ step }: { step: Step }) {
  switch (step.kind) {
    case 'segment-floor':
      return (
        <li>
          <strong>Floor search over {step.segments} segment base offsets</strong> for {step.target}: compared{' '}
          {step.probes.map((p) => (
            <code class={p.baseOffset === step.chosen ? 'hit' : undefined} key={p.slot}>
              {p.baseOffset}
            </code>
          ))}{' '}
          → segment <code class="hit">{step.chosen ?? 'none'}</code> ({step.file ? base(step.file) : '–'})
        </li>
      );
    case 'segment-skip':
      return (
        <li>
          Skipped segment <code>{step.baseOffset}</code>: {step.reason}
        </li>
      );
    case 'time-index':
      return (
        <li>
          <strong>Binary search in {base(step.file)}</strong> ({step.entries} entries) for timestamp {step.target}:
          <ol class="probes">
            {step.probes.map((p, i) => (
              <li key={i}>
                entry #{p.slot}: timestamp {p.timestamp} → offset {p.offset}
              </li>
            ))}
          </ol>
          Entry found: #{step.found.slot} (timestamp {step.found.timestamp}, offset {step.found.offset})
        </li>
      );
    case 'offset-index':
      return (
        <li>
          <strong>Binary search in {base(step.file)}</strong> ({step.entries} entries) for {step.purpose === 'offset' ? `offset ${step.target}` : `the last entry below position ${step.target} (end of the range)`}:
          <ol class="probes">
            {step.probes.map((p, i) => (
              <li key={i}>
                entry #{p.slot}: offset {p.offset} → position {p.position}
              </li>
            ))}
          </ol>
          Index entry found: <span class="hit" data-testid={step.purpose === 'offset' ? 'index-entry' : undefined}>#{step.found.slot} offset {step.found.offset} position {step.found.position}</span>
        </li>
      );
    case 'scan':
      return (
        <li>
          <strong>Forward scan ({step.purpose})</strong> from position {step.from}, reading batch headers only:
          <ol class="probes">
            {step.batches.map((b) => (
              <li key={b.position}>
                batch {b.baseOffset}–{b.lastOffset} at {b.position}, {b.size} bytes (skipped)
              </li>
            ))}
            {step.found ? (
              <li class="hit" data-testid={step.purpose === 'offset' ? 'target-batch' : undefined}>
                batch {step.found.baseOffset}–{step.found.lastOffset} at position {step.found.position}, {step.found.size} bytes (holds the target)
              </li>
            ) : null}
          </ol>
          {step.bytesScanned} bytes hopped over
        </li>
      );
    case 'timestamp-result':
      return (
        <li>
          First record at or after the timestamp: offset <code class="hit">{step.offset}</code> (timestamp {step.timestamp})
        </li>
      );
    case 'range':
      return (
        <li>
          <strong>sendfile</strong> <span data-testid="range">{base(step.file)} position {step.position} length {step.length}</span>
        </li>
      );
  }
}

function LookupTrace({ topic, partition }: { topic: string; partition: number }) {
  const [mode, setMode] = useState<'offset' | 'timestamp'>('offset');
  const [value, setValue] = useState('0');
  const [result, setResult] = useState<Lookup | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <Section title="Lookup trace">
      <p>How the Fetch read path turns an offset (or a timestamp, through the .timeindex first) into the byte range sendfile sends.</p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          api<Lookup>(`/v1/topics/${enc(topic)}/partitions/${partition}/lookup?${mode}=${enc(value)}`).then(setResult, (err: Error) => setError(err.message));
        }}
      >
        <label>
          Look up by{' '}
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value as 'offset' | 'timestamp')}>
            <option value="offset">offset</option>
            <option value="timestamp">timestamp</option>
          </select>
        </label>
        <label>
          Value <input required value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <button type="submit">Trace lookup</button>
      </form>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {result ? (
        <div class="trace" data-testid="trace">
          <ol class="steps">
            {result.steps.map((s, i) => (
              <StepView step={s} key={i} />
            ))}
          </ol>
          <p>
            {result.range ? `Result: ${base(result.range.file)} bytes ${result.range.position}–${result.range.position + result.range.length}, ${result.bytesScanned} bytes scanned.` : 'Nothing to send at this offset.'}
          </p>
        </div>
      ) : null}
    </Section>
  );
}

export function PartitionPage({ topic, partition }: { topic: string; partition: number }) {
  const detail = usePoll<Detail>(`/v1/topics/${enc(topic)}/partitions/${partition}`, 5000);
  const d = detail.data;
  return (
    <>
      <h1>
        {topic}-{partition}
      </h1>
      <p>
        <a href={`#/topics/${enc(topic)}`}>Back to {topic}</a> · <a href={`#/topics/${enc(topic)}/${partition}/messages`}>Browse messages</a>
      </p>
      <Status error={detail.error} loading={!d} />
      {d ? (
        <>
          <p>
            Log start {d.logStartOffset}, high watermark {d.highWatermark}, LSO {d.lastStableOffset}, log end {d.logEndOffset}, {bytes(d.sizeBytes)} in {d.segments.length} segments.
          </p>
          <Section title="Segments">
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Base offset</th>
                    <th scope="col">Last offset</th>
                    <th scope="col">Size</th>
                    <th scope="col">First timestamp</th>
                    <th scope="col">Max timestamp</th>
                    <th scope="col">.index entries</th>
                    <th scope="col">.timeindex entries</th>
                    <th scope="col">Bytes per index entry</th>
                  </tr>
                </thead>
                <tbody>
                  {d.segments.map((s) => (
                    <tr key={s.baseOffset}>
                      <td>
                        {s.baseOffset}
                        {s.active ? ' (active)' : ''}
                      </td>
                      <td>{s.lastOffset}</td>
                      <td>{bytes(s.sizeBytes)}</td>
                      <td>{time(s.firstTimestamp)}</td>
                      <td>{time(s.maxTimestamp)}</td>
                      <td>{s.offsetIndexEntries}</td>
                      <td>{s.timeIndexEntries}</td>
                      <td>{s.bytesPerIndexEntry ?? '–'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Section>
          <Section title="Timeline">
            <Timeline segments={d.segments} />
          </Section>
          <Section title="What happens next">
            <ul>
              {d.next.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          </Section>
        </>
      ) : null}
      <LookupTrace topic={topic} partition={partition} />
    </>
  );
}
