// The schema registry (kafkite.schema.registry.enable): subjects, their versions and schemas, and a
// compatibility check of a candidate schema against the subject's latest version, over Confluent's REST API.
import { useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api';
import { usePoll } from '../hooks';
import { ActionResult, Section, Status, useAction } from './common';

interface VersionView {
  subject: string;
  version: number;
  id: number;
  schemaType?: string;
  schema: string;
}

function pretty(schema: string): string {
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema; // Protobuf
  }
}

export function Schemas() {
  const subjects = usePoll<string[]>('/subjects', 10_000);
  const off = subjects.error instanceof ApiError && subjects.error.status === 404;
  return (
    <>
      <h1>Schemas</h1>
      {off ? <p>The schema registry is off: start kafkite with kafkite.schema.registry.enable=true.</p> : <Status error={subjects.error} loading={!subjects.data} />}
      <ul class="subjects">
        {subjects.data?.map((s) => (
          <li key={s}>
            <a href={`#/schemas/${enc(s)}`}>{s}</a>
          </li>
        ))}
      </ul>
    </>
  );
}

export function SubjectPage({ subject }: { subject: string }) {
  const versions = usePoll<number[]>(`/subjects/${enc(subject)}/versions`, 10_000);
  const config = usePoll<{ compatibilityLevel: string }>(`/config/${enc(subject)}?defaultToGlobal=true`, 0);
  const [chosen, setChosen] = useState<number | null>(null);
  const version = chosen ?? versions.data?.at(-1) ?? null;
  const shown = usePoll<VersionView>(version === null ? null : `/subjects/${enc(subject)}/versions/${version}`, 0);
  const [candidate, setCandidate] = useState('');
  const [verdict, setVerdict] = useState<string[] | null>(null);
  const check = useAction();
  return (
    <>
      <h1>{subject}</h1>
      <Status error={versions.error} loading={!versions.data} />
      <p>Compatibility: {config.data?.compatibilityLevel ?? '…'}</p>
      <label>
        Version{' '}
        <select value={version ?? ''} onChange={(e) => setChosen(Number(e.currentTarget.value))}>
          {versions.data?.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      {shown.data ? (
        <Section title="Schema">
          <p>
            Id {shown.data.id}, {shown.data.schemaType ?? 'AVRO'}
          </p>
          <pre class="schema">{pretty(shown.data.schema)}</pre>
        </Section>
      ) : null}
      <Section title="Compatibility check">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void check.run(async () => {
              const res = await api<{ is_compatible: boolean; messages?: string[] }>(`/compatibility/subjects/${enc(subject)}/versions/latest?verbose=true`, {
                method: 'POST',
                body: { schema: candidate, schemaType: shown.data?.schemaType ?? 'AVRO' },
              });
              setVerdict(res.is_compatible ? [] : (res.messages ?? []));
            });
          }}
        >
          <label>
            Candidate schema
            <textarea class="candidate" rows={8} value={candidate} onInput={(e) => setCandidate(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={check.busy || candidate.trim() === ''}>
            Check against the latest version
          </button>
        </form>
        <ActionResult message={verdict === null ? null : verdict.length === 0 ? 'Compatible' : null} error={check.error} />
        {verdict && verdict.length > 0 ? (
          <div role="alert">
            <p class="error">Incompatible</p>
            <ul>
              {verdict.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          </div>
        ) : null}
      </Section>
    </>
  );
}
