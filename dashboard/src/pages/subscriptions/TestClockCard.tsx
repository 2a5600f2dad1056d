import { useEffect, useRef, useState } from 'preact/hooks';
import type { SubscriptionResource as Subscription, TestClock } from '../../../../modules/subscriptions/index.ts';
import { api, ApiError } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { Card } from '../../components/Card.tsx';
import { Field } from '../../components/Field.tsx';
import { ErrorNotice, Loading } from '../../components/Notice.tsx';
import { formatDateTimeSeconds } from '../../format.ts';
import { useAction } from '../../useAction.ts';
import { useApi } from '../../useApi.ts';
import { fromLocalInput, hasEnded, nextStep, toLocalInput } from './subscriptionKit.ts';

/** How often an advancing clock is asked again, and for how long at most before the page stops asking. */
const POLL_MS = 500;
const POLL_LIMIT = 120;

/**
 * A test-mode subscription's clock, and advancing it (to the next step by default). The card asks
 * for the clock till it reads `ready` again, then has the page read everything again.
 */
export function TestClockCard({ subscription: s, onAdvanced }: { subscription: Subscription; onAdvanced: () => void }) {
  const path = `/test_clocks/${encodeURIComponent(s.test_clock!)}`;
  const loaded = useApi<TestClock>(path);
  // The latest answer (the advance's, then each poll's) over the first read.
  const [latest, setLatest] = useState<TestClock | null>(null);
  const clock = latest ?? loaded.data ?? null;
  const [target, setTarget] = useState('');
  const [stalled, setStalled] = useState(false);
  const action = useAction<'advance'>();
  const next = nextStep(s);
  const due = !hasEnded(s) && s.status !== 'paused' && next.at !== null && clock !== null && next.at > clock.frozen_time ? next : null;

  // The field starts at the next step (once the clock is known) and after each advance.
  const frozen = clock?.frozen_time ?? null;
  useEffect(() => {
    if (frozen === null || clock?.status !== 'ready') return;
    setTarget(toLocalInput(due?.at ?? frozen + 86_400));
  }, [frozen, due?.at, clock?.status]);

  // While advancing: ask every POLL_MS until ready (bounded), then have the page read again.
  const polls = useRef(0);
  const advancing = clock?.status === 'advancing';
  useEffect(() => {
    if (!advancing || stalled) return;
    let stop = false;
    const timer = setTimeout(async () => {
      polls.current += 1;
      try {
        const answer = await api.get<TestClock>(path);
        if (stop) return;
        setLatest(answer);
        if (answer.status === 'ready') {
          polls.current = 0;
          onAdvanced();
        } else if (polls.current >= POLL_LIMIT) setStalled(true);
      } catch {
        if (!stop && polls.current >= POLL_LIMIT) setStalled(true);
      }
    }, POLL_MS);
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [advancing, stalled, clock]);

  const advance = async (e: Event) => {
    e.preventDefault();
    const frozenTime = fromLocalInput(target);
    const done = await action.run('advance', async () => {
      if (frozenTime === null) throw new ApiError(422, 'invalid', 'Enter a date and time.', { frozen_time: ['Enter a date and time.'] });
      const answer = await api.post<TestClock>(`${path}/advance`, { frozen_time: frozenTime });
      polls.current = 0;
      setStalled(false);
      setLatest(answer);
      return answer;
    });
    // Refused (advanced elsewhere meanwhile, say): read the clock again, so the card shows where it is.
    if (done === undefined && frozenTime !== null) {
      setLatest(null);
      loaded.reload();
    }
  };

  const error = action.errorOf('advance');
  return (
    <Card title="Test clock" id="test-clock">
      {loaded.error?.status === 404 ? (
        <p class="muted">The test clock was deleted: its subscriptions ended with it.</p>
      ) : (
        <ErrorNotice error={loaded.error} />
      )}
      {!clock && loaded.loading && <Loading />}
      {clock && (
        <>
          <dl class="details clock-details" data-testid="test-clock">
            <dt>Name</dt>
            <dd>
              {clock.name ?? <span class="muted">No name</span>} <code>{clock.id}</code>
            </dd>
            <dt>Frozen time</dt>
            <dd data-testid="clock-frozen-time">{formatDateTimeSeconds(clock.frozen_time)}</dd>
            <dt>Status</dt>
            <dd aria-live="polite">
              <span data-testid="clock-status">
                <Badge status={clock.status === 'ready' ? 'active' : 'running'}>{clock.status === 'ready' ? 'Ready' : 'Advancing…'}</Badge>
              </span>
              {advancing && !stalled && <span class="row-sub">Billing what fell due by then: renewals, retries, trial ends, cancellations.</span>}
              {stalled && (
                <span class="row-sub">
                  Still advancing: the service's background jobs may be busy or stopped.{' '}
                  <button type="button" class="btn btn-ghost btn-sm" onClick={() => ((polls.current = 0), setStalled(false))}>
                    Check again
                  </button>
                </span>
              )}
            </dd>
          </dl>
          <form class="form-row clock-advance" aria-label="Advance the test clock" onSubmit={advance}>
            <Field
              label="Advance to"
              name="frozen_time"
              error={error}
              hint={due ? `Default: ${next.label.toLowerCase()}, ${formatDateTimeSeconds(due.at)}. Everything due by then happens.` : 'Everything due by then happens: renewals, retries, trial ends, cancellations.'}
            >
              {(c) => <input {...c} class="input" type="datetime-local" step={1} required value={target} onInput={(ev) => setTarget((ev.target as HTMLInputElement).value)} />}
            </Field>
            <div class="field field-button">
              <Button type="submit" variant="primary" busy={action.busy === 'advance' || advancing} error={error && !error.field('frozen_time') ? error : null}>
                Advance clock
              </Button>
            </div>
          </form>
        </>
      )}
    </Card>
  );
}
