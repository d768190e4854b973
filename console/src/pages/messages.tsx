import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { cell, type Encoding, render, time } from '../format';
import { ActionResult, Section, useAction } from './common';

interface BrowsedRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Array<{ key: string; value: string | null }>;
  keySize: number;
  valueSize: number;
  batchSize: number;
}

interface Page {
  startOffset: number;
  logStartOffset: number;
  highWatermark: number;
  records: BrowsedRecord[];
  nextOffset: number;
}

const PAGE = 100;

export function Messages({ topic, partition, readOnly }: { topic: string; partition: number; readOnly: boolean }) {
  const [from, setFrom] = useState<'newest' | 'offset' | 'timestamp'>('newest');
  const [value, setValue] = useState(String(PAGE));
  const [keyFilter, setKeyFilter] = useState('');
  const [encoding, setEncoding] = useState<Encoding>('text');
  const [page, setPage] = useState<Page | null>(null);
  const [history, setHistory] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState('');
  const [val, setVal] = useState('');
  const [header, setHeader] = useState('');
  const action = useAction();
  const path = `/v1/topics/${enc(topic)}/partitions/${partition}/records`;

  const load = (query: string, back: number[]) => {
    setError(null);
    api<Page>(`${path}?${query}&limit=${PAGE}${keyFilter ? `&key=${enc(keyFilter)}` : ''}`).then(
      (p) => {
        setPage(p);
        setHistory(back);
      },
      (e: Error) => setError(e.message),
    );
  };
  const start = () => load(`${from}=${enc(value)}`, []);
  useEffect(start, [topic, partition]);

  const download = () => {
    const shown = page?.records.map((r) => ({ ...r, key: render(r.key, encoding), value: render(r.value, encoding), headers: r.headers.map((h) => ({ key: h.key, value: render(h.value, encoding) })) }));
    const url = URL.createObjectURL(new Blob([JSON.stringify(shown, null, 2)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${topic}-${partition}-${page?.startOffset ?? 0}.json`;
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <>
      <h1>
        Messages of {topic}-{partition}
      </h1>
      <p>
        <a href={`#/topics/${enc(topic)}/${partition}`}>Segments and lookup trace</a>
      </p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          start();
        }}
      >
        <label>
          Start from{' '}
          <select value={from} onChange={(e) => setFrom(e.currentTarget.value as typeof from)}>
            <option value="newest">newest N</option>
            <option value="offset">offset</option>
            <option value="timestamp">timestamp (ms)</option>
          </select>
        </label>
        <label>
          Offset, timestamp or N <input required value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <label>
          Key contains <input value={keyFilter} onInput={(e) => setKeyFilter(e.currentTarget.value)} />
        </label>
        <label>
          Show as{' '}
          <select value={encoding} onChange={(e) => setEncoding(e.currentTarget.value as Encoding)}>
            <option value="text">text</option>
            <option value="json">JSON</option>
            <option value="hex">hex</option>
          </select>
        </label>
        <button type="submit">Show messages</button>
      </form>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {page ? (
        <>
          <p aria-live="polite">
            {page.records.length} records from offset {page.startOffset} (log start {page.logStartOffset}, high watermark {page.highWatermark})
          </p>
          <div class="pager">
            <button type="button" disabled={history.length === 0} onClick={() => load(`offset=${history[history.length - 1]}`, history.slice(0, -1))}>
              Previous page
            </button>
            <button type="button" disabled={page.nextOffset >= page.highWatermark} onClick={() => load(`offset=${page.nextOffset}`, [...history, page.startOffset])}>
              Next page
            </button>
            <button type="button" onClick={download}>
              Download JSON
            </button>
          </div>
          <div class="scroll">
            <table class="records">
              <thead>
                <tr>
                  <th scope="col">Offset</th>
                  <th scope="col">Timestamp</th>
                  <th scope="col">Key</th>
                  <th scope="col">Value</th>
                  <th scope="col">Headers</th>
                  <th scope="col">Sizes (key/value/batch)</th>
                </tr>
              </thead>
              <tbody>
                {page.records.map((r) => (
                  <tr key={r.offset}>
                    <td>{r.offset}</td>
                    <td>{time(r.timestamp)}</td>
                    <td>
                      <pre>{cell(r.key, encoding)}</pre>
                    </td>
                    <td>
                      <pre>{cell(r.value, encoding)}</pre>
                    </td>
                    <td>
                      {r.headers.map((h, i) => (
                        <div key={i}>
                          {h.key}: {cell(h.value, encoding)}
                        </div>
                      ))}
                    </td>
                    <td>
                      {r.keySize}/{r.valueSize}/{r.batchSize}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
      {readOnly ? null : (
        <Section title="Produce a test message">
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              const headers = header.includes('=') ? [{ key: header.split('=')[0], value: header.slice(header.indexOf('=') + 1) }] : [];
              action.run(async () => {
                const r = await api<{ offset: number }>(path, { method: 'POST', body: { key: key || null, value: val, headers } });
                load(`offset=${r.offset}`, []);
              }, 'Produced');
            }}
          >
            <label>
              Message key <input value={key} onInput={(e) => setKey(e.currentTarget.value)} />
            </label>
            <label>
              Message value <input value={val} onInput={(e) => setVal(e.currentTarget.value)} />
            </label>
            <label>
              Message header (name=value) <input value={header} onInput={(e) => setHeader(e.currentTarget.value)} />
            </label>
            <button type="submit">Produce</button>
          </form>
          <ActionResult message={action.message} error={action.error} />
        </Section>
      )}
    </>
  );
}
