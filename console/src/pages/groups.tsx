import { useRef, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { Chart } from '../chart';
import { usePoll } from '../hooks';
import { ActionResult, Section, Status, useAction } from './common';

interface GroupSummary {
  groupId: string;
  state: string;
  type: string;
  protocolType: string;
  members: unknown[];
  offsets: Array<{ lag: number | null }>;
}

export function Groups() {
  const list = usePoll<{ groups: GroupSummary[] }>('/v1/groups');
  return (
    <>
      <h1>Groups</h1>
      <Status error={list.error} loading={!list.data} />
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Type</th>
              <th scope="col">State</th>
              <th scope="col">Members</th>
              <th scope="col">Total lag</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.groups.map((g) => (
              <tr key={g.groupId}>
                <td>
                  <a href={`#/groups/${enc(g.groupId)}`}>{g.groupId}</a>
                </td>
                <td data-testid="group-type">{g.type}</td>
                <td>{g.state}</td>
                <td>{g.members.length}</td>
                <td>{g.offsets.reduce((s, o) => s + (o.lag ?? 0), 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

const PROTOCOLS: Record<string, string> = { consumer: 'consumer (KIP-848)', share: 'share (KIP-932)', streams: 'streams (KIP-1071)' };

/** A streams member's tasks as kafka-streams-groups prints them: "ACTIVE: 0:[0,1]; STANDBY: 1:[0]". */
function taskText(tasks: GroupDetail['members'][number]['tasks']): string {
  if (!tasks) return '';
  return (['active', 'standby', 'warmup'] as const)
    .filter((kind) => tasks[kind].length > 0)
    .map((kind) => `${kind.toUpperCase()}: ${tasks[kind].map((t) => `${t.subtopologyId}:[${t.partitions.join(',')}]`).join(' ')}`)
    .join('; ');
}

interface GroupDetail {
  groupId: string;
  state: string;
  type: string;
  protocolType: string;
  protocol: string;
  totalLag: number;
  members: Array<{
    memberId: string;
    clientId: string;
    clientHost: string;
    assignment: Array<{ topic: string; partitions: number[] }>;
    /** Streams groups (KIP-1071): the member's process and its tasks by sub-topology. */
    processId?: string;
    tasks?: Record<'active' | 'standby' | 'warmup', Array<{ subtopologyId: string; partitions: number[] }>>;
    /** Share groups (KIP-932). */
    memberEpoch?: number;
    subscribedTopics?: string[];
  }>;
  /** Share groups (KIP-932): the group epoch and the share partitions' in-flight records. */
  groupEpoch?: number;
  partitions?: SharePartitionRow[];
  offsets: Array<{ topic: string; partition: number; committedOffset: number; logEndOffset: number | null; lag: number | null }>;
}

interface SharePartitionRow {
  topic: string;
  partition: number;
  source: 'live' | 'persisted';
  startOffset: number;
  endOffset: number;
  available: number;
  acquired: number;
  acknowledged: number;
  archived: number;
  deliveryCounts: Array<[number, number]>;
}

const SHARE_PARTITION_COLUMNS = ['Topic', 'Partition', 'Source', 'Start offset', 'End offset', 'Available', 'Acquired', 'Acknowledged', 'Archived', 'Delivery counts'];

/** A share group's partitions: start and end offsets, in-flight records by state, delivery counts (KIP-932). */
function SharePartitions({ rows }: { rows: SharePartitionRow[] }) {
  return (
    <Section title="Share partitions">
      <p>Live: the broker's share partition in memory. Persisted: the share coordinator's state on __share_group_state (acquired records are not persisted).</p>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              {SHARE_PARTITION_COLUMNS.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={`${p.topic}-${p.partition}`} data-testid={`share-partition-${p.topic}-${p.partition}`}>
                <td>{p.topic}</td>
                <td>{p.partition}</td>
                <td data-testid="share-source">{p.source}</td>
                <td data-testid="share-start">{p.startOffset}</td>
                <td data-testid="share-end">{p.endOffset}</td>
                <td data-testid="share-available">{p.available}</td>
                <td data-testid="share-acquired">{p.acquired}</td>
                <td data-testid="share-acknowledged">{p.acknowledged}</td>
                <td data-testid="share-archived">{p.archived}</td>
                <td data-testid="share-deliveries">{p.deliveryCounts.map(([count, records]) => `${count}×: ${records}`).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

export function GroupPage({ id, readOnly }: { id: string; readOnly: boolean }) {
  const group = usePoll<GroupDetail>(`/v1/groups/${enc(id)}`);
  const lagHistory = useRef<{ xs: number[]; lag: number[] }>({ xs: [], lag: [] });
  const [topic, setTopic] = useState('');
  const [to, setTo] = useState('earliest');
  const [value, setValue] = useState('');
  const action = useAction();
  const g = group.data;
  if (g) {
    const h = lagHistory.current;
    const now = Math.floor(Date.now() / 1000);
    if (h.xs[h.xs.length - 1] !== now) {
      h.xs = [...h.xs, now].slice(-450);
      h.lag = [...h.lag, g.totalLag].slice(-450);
    }
  }
  const topics = [...new Set(g?.offsets.map((o) => o.topic) ?? [])];
  const streams = g?.type === 'streams';
  const share = g?.type === 'share';
  return (
    <>
      <h1>Group {id}</h1>
      <Status error={group.error} loading={!g} />
      {g ? (
        <>
          <dl class="facts">
            <dt>State</dt>
            <dd data-testid="group-state">{g.state}</dd>
            <dt>Protocol</dt>
            <dd>
              {PROTOCOLS[g.type] ?? 'classic'} {g.protocolType} {g.protocol}
            </dd>
            {share ? (
              <>
                <dt>Group epoch</dt>
                <dd data-testid="group-epoch">{g.groupEpoch}</dd>
              </>
            ) : (
              <>
                <dt>Total lag</dt>
                <dd data-testid="total-lag">{g.totalLag}</dd>
              </>
            )}
          </dl>
          <Section title="Members">
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Member</th>
                    <th scope="col">Client id</th>
                    <th scope="col">Host</th>
                    {share ? <th scope="col">Member epoch</th> : null}
                    {share ? <th scope="col">Subscribed topics</th> : null}
                    <th scope="col">{streams ? 'Process' : 'Assignment'}</th>
                    {streams ? <th scope="col">Tasks</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {g.members.map((m) => (
                    <tr key={m.memberId}>
                      <td>{m.memberId}</td>
                      <td>{m.clientId}</td>
                      <td>{m.clientHost}</td>
                      {share ? <td>{m.memberEpoch}</td> : null}
                      {share ? <td>{m.subscribedTopics?.join(', ')}</td> : null}
                      <td data-testid="member-assignment">{streams ? m.processId : m.assignment.map((a) => `${a.topic}: ${a.partitions.join(',')}`).join('; ')}</td>
                      {streams ? <td data-testid="member-tasks">{taskText(m.tasks)}</td> : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Section>
          {share ? <SharePartitions rows={g.partitions ?? []} /> : null}
          {share ? null : <Section title="Offsets and lag">
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Topic</th>
                    <th scope="col">Partition</th>
                    <th scope="col">Committed offset</th>
                    <th scope="col">High watermark</th>
                    <th scope="col">Lag</th>
                  </tr>
                </thead>
                <tbody>
                  {g.offsets.map((o) => (
                    <tr key={`${o.topic}-${o.partition}`}>
                      <td>{o.topic}</td>
                      <td>{o.partition}</td>
                      <td>{o.committedOffset}</td>
                      <td>{o.logEndOffset ?? '–'}</td>
                      <td>{o.lag ?? '–'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Chart title="Total lag" labels={['lag']} data={[lagHistory.current.xs, lagHistory.current.lag]} />
          </Section>}
          {readOnly || share ? null : (
            <Section title="Reset offsets or delete">
              {g.state !== 'Empty' ? <p>Offsets can only be reset, and the group deleted, while it is Empty (state now {g.state}).</p> : null}
              <form
                class="inline"
                onSubmit={(e) => {
                  e.preventDefault();
                  action.run(() => api(`/v1/groups/${enc(id)}/reset-offsets`, { method: 'POST', body: { topic: topic || topics[0], to, value: value === '' ? undefined : Number(value) } }).then(group.reload), 'Offsets reset');
                }}
              >
                <label>
                  Topic{' '}
                  <select value={topic || topics[0]} onChange={(e) => setTopic(e.currentTarget.value)}>
                    {topics.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                </label>
                <label>
                  Reset to{' '}
                  <select value={to} onChange={(e) => setTo(e.currentTarget.value)}>
                    <option value="earliest">earliest</option>
                    <option value="latest">latest</option>
                    <option value="timestamp">timestamp</option>
                    <option value="offset">offset</option>
                  </select>
                </label>
                <label>
                  Timestamp or offset <input type="number" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
                </label>
                <button type="submit" disabled={g.state !== 'Empty'}>
                  Reset offsets
                </button>
              </form>
              <button
                type="button"
                disabled={g.state !== 'Empty'}
                onClick={() => confirm(`Delete group ${id}?`) && action.run(() => api(`/v1/groups/${enc(id)}`, { method: 'DELETE' }).then(() => (location.hash = '#/groups')), 'Deleted')}
              >
                Delete group
              </button>
              <ActionResult message={action.message} error={action.error} />
            </Section>
          )}
        </>
      ) : null}
    </>
  );
}
