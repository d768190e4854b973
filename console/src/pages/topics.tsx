import { useRef, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { bytes } from '../format';
import { usePoll } from '../hooks';
import { ActionResult, Section, Status, useAction } from './common';

interface TopicSummary {
  name: string;
  partitions: number;
  sizeBytes: number;
  endOffsets: number;
  retentionMs: number;
  cleanupPolicy: string;
}

function retention(ms: number): string {
  if (ms < 0) return 'forever';
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  return `${ms} ms`;
}

export function Topics({ readOnly }: { readOnly: boolean }) {
  const list = usePoll<{ topics: TopicSummary[] }>('/v1/topics');
  const [search, setSearch] = useState('');
  const [name, setName] = useState('');
  const [partitions, setPartitions] = useState('1');
  const action = useAction();
  // Message rate: the change of the summed log end offsets between two polls.
  const previous = useRef(new Map<string, { at: number; end: number; rate: number }>());
  const now = Date.now();
  for (const t of list.data?.topics ?? []) {
    const p = previous.current.get(t.name);
    if (!p) previous.current.set(t.name, { at: now, end: t.endOffsets, rate: 0 });
    else if (now - p.at >= 1000) previous.current.set(t.name, { at: now, end: t.endOffsets, rate: ((t.endOffsets - p.end) * 1000) / (now - p.at) });
  }
  const shown = (list.data?.topics ?? []).filter((t) => t.name.toLowerCase().includes(search.toLowerCase()));
  return (
    <>
      <h1>Topics</h1>
      <label class="search">
        Search topics <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
      </label>
      <Status error={list.error} loading={!list.data} />
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Topic</th>
              <th scope="col">Partitions</th>
              <th scope="col">Size</th>
              <th scope="col">Messages/s</th>
              <th scope="col">Retention</th>
              <th scope="col">Cleanup policy</th>
              {readOnly ? null : <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={t.name}>
                <td>
                  <a href={`#/topics/${enc(t.name)}`}>{t.name}</a>
                </td>
                <td>{t.partitions}</td>
                <td>{bytes(t.sizeBytes)}</td>
                <td>{(previous.current.get(t.name)?.rate ?? 0).toFixed(1)}</td>
                <td>{retention(t.retentionMs)}</td>
                <td>{t.cleanupPolicy}</td>
                {readOnly ? null : (
                  <td>
                    <button
                      type="button"
                      aria-label={`Delete topic ${t.name}`}
                      onClick={() => confirm(`Delete topic ${t.name}?`) && action.run(() => api(`/v1/topics/${enc(t.name)}`, { method: 'DELETE' }).then(list.reload), `Deleted ${t.name}`)}
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {readOnly ? null : (
        <Section title="Create a topic">
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              action.run(() => api('/v1/topics', { method: 'POST', body: { name, partitions: Number(partitions) } }).then(list.reload), `Created ${name}`);
            }}
          >
            <label>
              Name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <label>
              Partitions <input type="number" min="1" value={partitions} onInput={(e) => setPartitions(e.currentTarget.value)} />
            </label>
            <button type="submit" disabled={action.busy}>
              Create topic
            </button>
          </form>
        </Section>
      )}
      <ActionResult message={action.message} error={action.error} />
    </>
  );
}

interface TopicView {
  name: string;
  topicId: string;
  sizeBytes: number;
  partitions: Array<{ partition: number; logStartOffset: number; logEndOffset: number; highWatermark: number; lastStableOffset: number; sizeBytes: number }>;
}

interface ConfigEntry {
  name: string;
  value: string | null;
  source: 'default' | 'broker' | 'topic';
  readOnly: boolean;
  isSensitive: boolean;
}

export function TopicPage({ name, readOnly }: { name: string; readOnly: boolean }) {
  const topic = usePoll<TopicView>(`/v1/topics/${enc(name)}`);
  const configs = usePoll<{ configs: ConfigEntry[] }>(`/v1/topics/${enc(name)}/configs`, 0);
  const [key, setKey] = useState('retention.ms');
  const [value, setValue] = useState('');
  const [count, setCount] = useState('');
  const [deletePartition, setDeletePartition] = useState('0');
  const [deleteOffset, setDeleteOffset] = useState('');
  const action = useAction();
  const t = topic.data;
  return (
    <>
      <h1>Topic {name}</h1>
      <Status error={topic.error} loading={!t} />
      {t ? (
        <p>
          Topic id {t.topicId}, {t.partitions.length} partitions, {bytes(t.sizeBytes)}
        </p>
      ) : null}
      <Section title="Partitions">
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Partition</th>
                <th scope="col">Log start offset</th>
                <th scope="col">High watermark</th>
                <th scope="col">Last stable offset</th>
                <th scope="col">Size</th>
                <th scope="col">Browse</th>
              </tr>
            </thead>
            <tbody>
              {t?.partitions.map((p) => (
                <tr key={p.partition}>
                  <td>
                    <a href={`#/topics/${enc(name)}/${p.partition}`}>{p.partition}</a>
                  </td>
                  <td>{p.logStartOffset}</td>
                  <td>{p.highWatermark}</td>
                  <td>{p.lastStableOffset}</td>
                  <td>{bytes(p.sizeBytes)}</td>
                  <td>
                    <a href={`#/topics/${enc(name)}/${p.partition}/messages`} aria-label={`Messages of partition ${p.partition}`}>
                      Messages
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
      <Section title="Configs">
        <Status error={configs.error} />
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {configs.data?.configs.map((c) => (
                <tr key={c.name} class={c.source === 'topic' ? 'override' : undefined}>
                  <td>{c.name}</td>
                  <td>{c.isSensitive ? '••••' : (c.value ?? 'null')}</td>
                  <td>{c.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {readOnly ? null : (
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              action.run(() => api(`/v1/topics/${enc(name)}/configs`, { method: 'PATCH', body: value === '' ? { delete: [key] } : { set: { [key]: value } } }).then(configs.reload), `Set ${key}`);
            }}
          >
            <label>
              Config{' '}
              <select aria-label="Config to change" value={key} onChange={(e) => setKey(e.currentTarget.value)}>
                {configs.data?.configs.filter((c) => !c.readOnly).map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              New value (empty resets to default) <input value={value} onInput={(e) => setValue(e.currentTarget.value)} />
            </label>
            <button type="submit" disabled={action.busy}>
              Save config
            </button>
          </form>
        )}
      </Section>
      {readOnly ? null : (
        <Section title="Change partitions and records">
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              action.run(() => api(`/v1/topics/${enc(name)}/partitions`, { method: 'POST', body: { count: Number(count) } }).then(topic.reload), `Now ${count} partitions`);
            }}
          >
            <label>
              New partition count <input type="number" min="1" required value={count} onInput={(e) => setCount(e.currentTarget.value)} />
            </label>
            <button type="submit">Add partitions</button>
          </form>
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              action.run(
                () => api(`/v1/topics/${enc(name)}/partitions/${deletePartition}/delete-records`, { method: 'POST', body: { offset: Number(deleteOffset) } }).then(topic.reload),
                `Deleted records of partition ${deletePartition} before ${deleteOffset}`,
              );
            }}
          >
            <label>
              Partition <input type="number" min="0" value={deletePartition} onInput={(e) => setDeletePartition(e.currentTarget.value)} />
            </label>
            <label>
              Delete records before offset <input type="number" min="-1" required value={deleteOffset} onInput={(e) => setDeleteOffset(e.currentTarget.value)} />
            </label>
            <button type="submit">Delete records</button>
          </form>
        </Section>
      )}
      <ActionResult message={action.message} error={action.error} />
    </>
  );
}
