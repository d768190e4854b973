// kafkite console: Overview, Topics, Topic, Partition (segments, timeline, lookup trace), Messages, Groups, Schemas.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, setToken, type OverviewData } from './api';
import { useHash, usePoll } from './hooks';
import { Overview } from './pages/overview';
import { Topics, TopicPage } from './pages/topics';
import { PartitionPage } from './pages/partition';
import { Messages } from './pages/messages';
import { Groups, GroupPage } from './pages/groups';
import { Schemas, SubjectPage } from './pages/schemas';
import './style.css';


function TokenForm({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        setToken(value);
        onDone();
      }}
    >
      <h1>Admin token required</h1>
      <p>This admin listener is not on loopback: enter its bearer token (kafkite.admin.token).</p>
      <label>
        Token <input type="password" value={value} onInput={(e) => setValue(e.currentTarget.value)} autoFocus />
      </label>
      <button type="submit">Sign in</button>
    </form>
  );
}

function App() {
  const route = useHash();
  const overview = usePoll<OverviewData>('/v1/overview', 10_000);
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(true);
  // After navigating, focus moves to the new page's content (not on the first load: Tab starts at the skip link).
  useEffect(() => {
    if (firstRoute.current) firstRoute.current = false;
    else main.current?.focus();
  }, [route.join('/')]);
  if (overview.error instanceof ApiError && overview.error.status === 401) return <TokenForm onDone={overview.reload} />;
  const readOnly = overview.data?.readOnly ?? true;
  const [section, a, b, c] = route;
  let page;
  if (section === 'topics' && a && b !== undefined && c === 'messages') page = <Messages topic={a} partition={Number(b)} readOnly={readOnly} />;
  else if (section === 'topics' && a && b !== undefined) page = <PartitionPage topic={a} partition={Number(b)} />;
  else if (section === 'topics' && a) page = <TopicPage name={a} readOnly={readOnly} />;
  else if (section === 'topics') page = <Topics readOnly={readOnly} />;
  else if (section === 'groups' && a) page = <GroupPage id={a} readOnly={readOnly} />;
  else if (section === 'groups') page = <Groups />;
  else if (section === 'schemas' && a) page = <SubjectPage subject={a} />;
  else if (section === 'schemas') page = <Schemas />;
  else page = <Overview data={overview.data} error={overview.error} />;
  const current = section ?? 'overview';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header>
        <span class="brand">kafkite</span>
        <nav aria-label="Main">
          <a href="#/" aria-current={current === 'overview' ? 'page' : undefined}>Overview</a>
          <a href="#/topics" aria-current={current === 'topics' ? 'page' : undefined}>Topics</a>
          <a href="#/groups" aria-current={current === 'groups' ? 'page' : undefined}>Groups</a>
          <a href="#/schemas" aria-current={current === 'schemas' ? 'page' : undefined}>Schemas</a>
        </nav>
        {readOnly && overview.data ? <span class="badge">read-only</span> : null}
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {page}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
