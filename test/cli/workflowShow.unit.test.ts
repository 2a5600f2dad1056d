import { describe, expect, it } from 'vitest';
import { workflowShowCommand } from '../../cli/commands/automation.ts';

describe('workflow show', () => {
  it('prints each step’s result whole: a long response body is never cut mid-string', () => {
    const body = `${'x'.repeat(500)} "quoted" end-of-body`;
    const text = (workflowShowCommand.format as (w: unknown) => string)({
      workflow_id: 3,
      organization_id: 'org_1',
      trigger_id: 1,
      sequence_id: 1,
      status: 'failed',
      step_count: 2,
      started_at: 1,
      finished_at: 2,
      steps: [
        {
          step: 1,
          action: 'send_webhook',
          status: 'failed',
          attempts: 4,
          started_at: 1,
          completed_at: 2,
          result: { success: false, status_code: 500, response_body: body, url: 'https://example.com/hook', method: 'post' },
        },
      ],
    });
    expect(text).toContain('step 1 send_webhook: failed after 4 attempts');
    expect(text).toContain(JSON.stringify(body));
    expect(text).toContain('"url": "https://example.com/hook"');
    expect(text).toContain('1 step(s) not run');
    // Every line of the result is valid JSON text again once the indentation is taken off.
    const json = text.split('\n').filter((l) => l.startsWith('    ')).map((l) => l.slice(4)).join('\n');
    expect(JSON.parse(json)).toMatchObject({ response_body: body });
  });
});
