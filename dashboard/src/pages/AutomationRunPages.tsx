import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { formatDateTimeSeconds } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import type { PageProps } from '../routes.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { ACTION_LABEL, type Sample, type Sequence, type Trigger, type Workflow } from './AutomationPage.tsx';

type ReceivedSample = Sample & { id: string; event_id?: string; repeated: boolean };
type TriggerAction = 'enable' | 'rotate' | 'choose' | 'test';

/** Asks again every `ms` while `on`: the answers a page waits for (a webhook, a running workflow). */
function usePoll(reload: () => void, on: boolean, ms = 1000) {
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(reload, ms);
    return () => clearInterval(timer);
  }, [on, ms]);
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

/**
 * A trigger's test screen: its catch URL, the received requests (polled each second till one
 * arrives), choosing one as the sample, and a test run of the sequence on it.
 */
export function TriggerPage({ params }: PageProps) {
  const id = params.id!;
  const triggers = useApi<{ data: Trigger[] }>('/triggers');
  const sequences = useApi<{ data: Sequence[] }>('/sequences');
  const samples = useApi<{ data: ReceivedSample[]; chosen: Sample | null }>(`/triggers/${encodeURIComponent(id)}/samples`);
  const { busy, errorOf, run } = useAction<TriggerAction>();
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const trigger = triggers.data?.data.find((t) => String(t.id) === id);
  const sequence = sequences.data?.data.find((s) => s.id === trigger?.sequence_id);
  const received = samples.data?.data ?? [];
  const waiting = samples.data !== undefined && received.length === 0;
  usePoll(samples.reload, !samples.error && trigger !== undefined, 1000);
  const shownSample = received.find((s) => s.id === selected) ?? received[0];

  /** Answers the route's answer, or undefined when it failed (the error shows). */
  async function act<T>(label: TriggerAction, work: () => Promise<T>, done?: string): Promise<T | undefined> {
    setNotice(null);
    return run(label, async () => {
      const answer = await work();
      if (done) setNotice(done);
      triggers.reload();
      samples.reload();
      return answer;
    });
  }

  const back = <Link href="/dashboard/automation">← Automation</Link>;
  if (!trigger) {
    return (
      <>
        <PageHeader title="Trigger" back={back} />
        <ErrorNotice error={triggers.error ?? samples.error} />
        {triggers.data ? <EmptyState title="No such trigger">Go back to Automation to see your triggers.</EmptyState> : <Loading />}
      </>
    );
  }
  const chosen = samples.data?.chosen ?? null;
  return (
    <>
      <PageHeader
        title={trigger.name}
        back={back}
        description={
          <>
            Starts{' '}
            {sequence ? <Link href={`/dashboard/automation/sequences/${sequence.id}`}>{sequence.name}</Link> : 'its sequence'}{' '}
            <Badge status={trigger.enabled ? 'enabled' : 'disabled'}>{trigger.enabled ? 'Enabled' : 'Disabled'}</Badge>
          </>
        }
        actions={
          <Button busy={busy === 'enable'} error={errorOf('enable')} onClick={() => act('enable', () => api.post(`/triggers/${trigger.id}/${trigger.enabled ? 'disable' : 'enable'}`), trigger.enabled ? 'Trigger disabled: its catch URL answers 404.' : 'Trigger enabled.')}>
            {trigger.enabled ? 'Disable' : 'Enable'}
          </Button>
        }
      />
      {notice && <Notice tone="success">{notice}</Notice>}
      <Card title="Catch URL" id="catch">
        <div class="copy-field">
          <code class="copy-value" aria-label="Catch URL">
            {trigger.catch_url}
          </code>
          <CopyButton text={trigger.catch_url} label="Copy URL" />
        </div>
        <p class="field-hint">Send any HTTP request to it (POST JSON, a form, GET with a query): each one starts the sequence. Anyone with the URL can start it; rotate it if it leaks.</p>
        <Button size="sm" variant="danger" busy={busy === 'rotate'} error={errorOf('rotate')} onClick={() => act('rotate', () => api.post(`/triggers/${trigger.id}/rotate`), 'New catch URL: the old one stopped working.')}>
          Rotate URL
        </Button>
      </Card>
      <section class="card" aria-labelledby="received-title" aria-live="polite">
        <div class="card-header">
          <h2 id="received-title">{waiting ? 'Waiting for the first webhook…' : 'Received requests'}</h2>
        </div>
        {!samples.data && <Loading />}
        {waiting && (
          <div class="waiting">
            <span class="pulse" aria-hidden="true" />
            <div>
              <p>Send a request to the catch URL above; it shows here the moment it arrives.</p>
              <pre class="code">{`curl -X POST '${trigger.catch_url}' \\\n  -H 'content-type: application/json' \\\n  -d '{"email":"ada@example.com","ref":"A-1"}'`}</pre>
            </div>
          </div>
        )}
        {received.length > 0 && (
          <div class="samples">
            <ul class="sample-list" aria-label="Received requests, newest first">
              {received.map((s) => (
                <li key={s.id}>
                  <button type="button" class={`sample-item${shownSample?.id === s.id ? ' selected' : ''}`} aria-pressed={shownSample?.id === s.id} onClick={() => setSelected(s.id)}>
                    <span class="mono">{s.method}</span> {formatDateTimeSeconds(s.received_at)}
                    {s.repeated && <span class="muted"> (repeat)</span>}
                  </button>
                </li>
              ))}
            </ul>
            {shownSample && (
              <div class="sample-detail">
                <h3>Payload</h3>
                <pre class="code" tabIndex={0} aria-label="Payload of the request">
                  {json(shownSample.payload)}
                </pre>
                {Object.keys(shownSample.query).length > 0 && (
                  <>
                    <h3>Query</h3>
                    <pre class="code">{json(shownSample.query)}</pre>
                  </>
                )}
                <details>
                  <summary>Headers</summary>
                  <pre class="code">{json(shownSample.headers)}</pre>
                </details>
                <Button variant="primary" busy={busy === 'choose'} error={errorOf('choose')} onClick={() => act('choose', () => api.put(`/triggers/${trigger.id}/sample`, { sample_id: shownSample.id }), 'Chosen as the sample: its fields are offered in the action editor.')}>
                  Use as sample
                </Button>
              </div>
            )}
          </div>
        )}
      </section>
      <Card title="Test run" id="test">
        {chosen ? (
          <>
            <p>
              Sample received {formatDateTimeSeconds(chosen.received_at)}. A test run really performs the sequence's actions on it (Send Webhook calls are sent) and is marked <em>test</em>.
            </p>
            <Button
              variant="primary"
              busy={busy === 'test'}
              error={errorOf('test')}
              onClick={async () => {
                const started = await act('test', () => api.post<{ workflow_id: number }>(`/triggers/${trigger.id}/test-run`));
                if (started) navigate(`/dashboard/automation/workflows/${started.workflow_id}`);
              }}
            >
              Test-run the sequence
            </Button>
          </>
        ) : (
          <p class="muted">Choose a received request as the sample first; then test-run the sequence on it.</p>
        )}
      </Card>
    </>
  );
}

/** A workflow's steps with their results; a failed one can be re-run from its failed step. */
export function WorkflowPage({ params }: PageProps) {
  const workflow = useApi<Workflow>(`/workflows/${encodeURIComponent(params.id!)}`);
  const sequences = useApi<{ data: Sequence[] }>('/sequences');
  const { busy, error, run } = useAction<'rerun'>();
  const w = workflow.data;
  usePoll(workflow.reload, w?.status === 'running' || (w !== undefined && w.steps.length === 0 && w.status !== 'completed'), 1000);
  const back = <Link href="/dashboard/automation">← Automation</Link>;
  if (!w) {
    return (
      <>
        <PageHeader title={`Workflow #${params.id}`} back={back} />
        <ErrorNotice error={workflow.error} />
        {workflow.loading && <Loading />}
      </>
    );
  }
  const sequence = sequences.data?.data.find((s) => s.id === w.sequence_id);
  const rerun = () =>
    run('rerun', async () => {
      await api.post(`/workflows/${w.id}/rerun`);
      workflow.reload();
    });
  return (
    <>
      <PageHeader
        title={`Workflow #${w.id}${w.test ? ' (test run)' : ''}`}
        back={back}
        description={
          <>
            <Badge status={w.status}>{w.status[0]!.toUpperCase() + w.status.slice(1)}</Badge> {sequence ? <Link href={`/dashboard/automation/sequences/${sequence.id}`}>{sequence.name}</Link> : null} · started {formatDateTimeSeconds(w.started_at)}
          </>
        }
        actions={
          w.status === 'failed' && (
            <Button variant="primary" busy={busy === 'rerun'} onClick={rerun}>
              Re-run from the failed step
            </Button>
          )
        }
      />
      <ErrorNotice error={error} />
      <section class="card" aria-labelledby="steps-title" aria-live="polite">
        <div class="card-header">
          <h2 id="steps-title">Steps</h2>
        </div>
        {w.steps.length === 0 && <Loading label="Starting…" />}
        <ol class="steps">
          {w.steps.map((s) => (
            <li key={s.step} class={`step step-${s.status}`}>
              <div class="step-head">
                <span class="step-title">
                  Step {s.step + 1}: {ACTION_LABEL[s.action] ?? s.action}
                </span>
                <Badge status={s.status === 'succeeded' ? 'completed' : s.status}>{s.status[0]!.toUpperCase() + s.status.slice(1)}</Badge>
              </div>
              <p class="muted">
                {s.attempts} attempt{s.attempts === 1 ? '' : 's'} · {formatDateTimeSeconds(s.started_at)}
                {s.completed_at ? ` → ${formatDateTimeSeconds(s.completed_at)}` : ''}
              </p>
              {s.result && (
                <pre class="code" tabIndex={0} aria-label={`Result of step ${s.step + 1}`}>
                  {json(s.result)}
                </pre>
              )}
            </li>
          ))}
        </ol>
        {w.steps.length > 0 && w.steps.length < w.step_count && w.status !== 'running' && <p class="muted">{w.step_count - w.steps.length} later step(s) did not run.</p>}
      </section>
    </>
  );
}
