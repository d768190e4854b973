import type { OverviewData } from '../api';
import { Chart } from '../chart';
import { bytes, duration } from '../format';
import { usePoll } from '../hooks';
import { Section, Status } from './common';

interface Traffic {
  start: number;
  produceBytes: number[];
  fetchBytes: number[];
  produceRequests: number[];
  fetchRequests: number[];
}

export function Overview({ data, error }: { data: OverviewData | null; error: Error | null }) {
  const traffic = usePoll<Traffic>('/v1/traffic');
  const t = traffic.data;
  const xs = t ? t.produceBytes.map((_, i) => t.start + i) : [];
  return (
    <>
      <h1>Overview</h1>
      <Status error={error} loading={!data} />
      {data ? (
        <dl class="facts">
          <dt>Cluster id</dt>
          <dd>{data.clusterId}</dd>
          <dt>Version</dt>
          <dd>kafkite {data.version}</dd>
          <dt>Node id</dt>
          <dd>{data.nodeId}</dd>
          <dt>Uptime</dt>
          <dd>{duration(data.uptimeMs)}</dd>
          <dt>Listeners</dt>
          <dd>{data.listeners.map((l) => `${l.name} ${l.address}`).join(', ')}</dd>
          <dt>Topics</dt>
          <dd>{data.topics}</dd>
        </dl>
      ) : null}
      {data ? (
        <Section title="Log dirs">
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Directory</th>
                  <th scope="col">Used by logs</th>
                  <th scope="col">Free</th>
                  <th scope="col">Disk size</th>
                </tr>
              </thead>
              <tbody>
                {data.logDirs.map((d) => (
                  <tr key={d.dir}>
                    <td>{d.dir}</td>
                    <td>{bytes(d.usedBytes)}</td>
                    <td>{bytes(d.freeBytes)}</td>
                    <td>{bytes(d.totalBytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      ) : null}
      <Section title="Traffic, last 15 minutes">
        <Status error={traffic.error} loading={!t} />
        {t ? (
          <div class="charts">
            <Chart title="Bytes/s" labels={['produce', 'fetch']} data={[xs, t.produceBytes, t.fetchBytes]} unit={(v) => bytes(v)} />
            <Chart title="Requests/s" labels={['produce', 'fetch']} data={[xs, t.produceRequests, t.fetchRequests]} />
          </div>
        ) : null}
      </Section>
    </>
  );
}
