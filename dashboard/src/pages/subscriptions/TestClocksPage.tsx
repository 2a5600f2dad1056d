import { useState } from 'preact/hooks';
import type { TestClock } from '../../../../modules/subscriptions/index.ts';
import { api, ApiError } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { Card } from '../../components/Card.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { DevelopersSection } from '../../components/Tabs.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Field, Input, OtherErrors } from '../../components/Field.tsx';
import { ErrorNotice, Loading } from '../../components/Notice.tsx';
import { Table } from '../../components/Table.tsx';
import { formatDateTime, formatDateTimeSeconds } from '../../format.ts';
import { useAction } from '../../useAction.ts';
import { useApi } from '../../useApi.ts';
import { fromLocalInput, toLocalInput } from './subscriptionKit.ts';

/** Test clocks: create one to attach to a test-mode session (`test_clock`); deleting one ends its subscriptions. */
export function TestClocksPage() {
  const clocks = useApi<{ data: TestClock[] }>('/test_clocks');
  const [name, setName] = useState('');
  const [frozen, setFrozen] = useState(() => toLocalInput(Math.floor(Date.now() / 1000)));
  const create = useAction<'create'>();
  const rows = useAction<'delete'>();

  const submit = async (e: Event) => {
    e.preventDefault();
    await create.run('create', async () => {
      const frozenTime = fromLocalInput(frozen);
      if (frozenTime === null) throw new ApiError(422, 'invalid', 'Enter a date and time.', { frozen_time: ['Enter a date and time.'] });
      await api.post<TestClock>('/test_clocks', { frozen_time: frozenTime, ...(name.trim() ? { name: name.trim() } : {}) });
      setName('');
      clocks.reload();
    });
  };

  return (
    <DevelopersSection current="/dashboard/developers/test-clocks" description="Test clocks bill test-mode subscriptions in their own time: renewals, retries and trial ends without waiting.">
      <Card title="Create a test clock" id="create-clock">
        <p class="muted small">
          Pass its id as <code>test_clock</code> when creating a test-mode checkout session: the subscription it makes lives at the clock's time. Advance the clock from the subscription's page.
        </p>
        <form class="form-row" onSubmit={submit} noValidate>
          <Field label="Name" name="name" error={create.error} hint="Optional, such as “Annual renewals”.">
            {(c) => <Input {...c} maxLength={300} value={name} onValue={setName} />}
          </Field>
          <Field label="Frozen time" name="frozen_time" error={create.error}>
            {(c) => <input {...c} class="input" type="datetime-local" step={1} required value={frozen} onInput={(ev) => setFrozen((ev.target as HTMLInputElement).value)} />}
          </Field>
          <div class="field field-button">
            <Button type="submit" variant="primary" busy={create.busy === 'create'}>
              Create clock
            </Button>
          </div>
        </form>
        <OtherErrors error={create.error} shown={['name', 'frozen_time']} />
      </Card>
      <Card title="Test clocks" id="clocks">
        <ErrorNotice error={clocks.error ?? rows.error} />
        {!clocks.data && clocks.loading && <Loading />}
        <Table
          caption="Test clocks"
          busy={clocks.loading}
          rows={clocks.data?.data}
          rowKey={(c) => c.id}
          columns={[
            {
              header: 'Name',
              cell: (c) => (
                <>
                  {c.name ?? <span class="muted">No name</span>}
                  <span class="row-sub mono">{c.id}</span>
                </>
              ),
            },
            { header: 'Frozen time', cell: (c) => <span class="nowrap">{formatDateTimeSeconds(c.frozen_time)}</span> },
            { header: 'Status', cell: (c) => <Badge status={c.status === 'ready' ? 'active' : 'running'}>{c.status === 'ready' ? 'Ready' : 'Advancing…'}</Badge> },
            { header: 'Created', wide: true, cell: (c) => <span class="nowrap">{formatDateTime(c.created_at)}</span> },
            {
              header: <span class="sr-only">Actions</span>,
              align: 'right',
              cell: (c) => (
                <ConfirmButton
                  label="Delete"
                  what={c.name ?? c.id}
                  confirm="Yes, delete it and end its subscriptions"
                  onConfirm={() =>
                    rows.run('delete', async () => {
                      await api.delete(`/test_clocks/${encodeURIComponent(c.id)}`);
                      clocks.reload();
                    })
                  }
                />
              ),
            },
          ]}
          empty={<EmptyState title="No test clocks yet">Create one above to test renewals without waiting a month.</EmptyState>}
        />
      </Card>
    </DevelopersSection>
  );
}
