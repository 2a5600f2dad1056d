import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickLocale } from '../../dashboard/src/locale.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, signInThroughForm } from './dashboardFixtures.ts';

describe('the dashboard in a browser whose own language tag Intl refuses', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    server = await startTestServer();
    // Chromium started with LANG=C (a bare Linux shell, a container) reports `en-US@posix`.
    chrome = await launchChromium({ locale: null, env: { LANG: 'C', LC_ALL: 'C', LANGUAGE: '' } });
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('picks the first tag Intl accepts, else English', () => {
    expect(pickLocale(['en-US@posix', undefined, 'de-DE'])).toBe('de-DE');
    expect(pickLocale(['en-US@posix'])).toBe('en-US');
    expect(pickLocale([])).toBe('en-US');
    expect(pickLocale(['fr'])).toBe('fr');
  });

  it('signs in and shows Home instead of a blank page', { timeout: 90_000 }, async () => {
    const person = await invitedPerson(server);
    const accepted = await fetch(`${server.url}/manage/api/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: person.token, password: 'correct horse battery' }),
    });
    expect(accepted.status).toBe(200);
    const page = await chrome.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/dashboard/sign-in`);
    // The condition under test: this browser's own tag (Navigator.prototype's getter: the page
    // shadows it) is one Intl refuses.
    const refused = await page.evaluate(() => {
      const own = Object.getOwnPropertyDescriptor(Navigator.prototype, 'language')!.get!.call(navigator) as string;
      try {
        Intl.getCanonicalLocales(own);
        return `accepted ${own}`;
      } catch {
        return 'refused';
      }
    });
    expect(refused).toBe('refused');
    await signInThroughForm(page, server.url, person.email, 'correct horse battery');
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
  });
});
