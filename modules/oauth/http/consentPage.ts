import { hash } from 'node:crypto';
import { OAUTH_SCOPES, type OAuthScope } from '../domain/oauthScopes.ts';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Plain, readable, high-contrast; the one style block is allowed by its hash, no script at all. */
const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;color:#111;background:#f6f6f6;margin:0}
main{max-width:34rem;margin:3rem auto;background:#fff;border:1px solid #ccc;border-radius:6px;padding:1.5rem 2rem}
h1{font-size:1.4rem;margin:0 0 1rem}
ul{padding-left:1.2rem}
li{margin:.4rem 0}
code{font-size:.9em;background:#eee;padding:0 .2em;border-radius:3px}
label{display:block;font-weight:600;margin:1rem 0 .3rem}
select{font:inherit;padding:.4rem;min-width:16rem}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.5rem 1.2rem;border-radius:4px;border:2px solid #1a4fa0;cursor:pointer}
button[value=allow]{background:#1a4fa0;color:#fff}
button[value=deny]{background:#fff;color:#1a4fa0}
button:focus-visible,select:focus-visible{outline:3px solid #f5a000;outline-offset:2px}
.note{color:#444;font-size:.9rem}
`;
const STYLE_HASH = `'sha256-${hash('sha256', STYLE, 'base64')}'`;

/**
 * The page's policy: nothing runs, the form posts only here and, after the redirects that follow
 * the answer, to the app's redirect URI (browsers apply form-action to those redirects too).
 */
export function consentPagePolicy(redirectOrigin: string | null): string {
  const targets = ["'self'", ...(redirectOrigin ? [redirectOrigin] : [])].join(' ');
  return `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self'; base-uri 'none'; form-action ${targets}; frame-ancestors 'none'`;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** What `openid` lets an app know: who the person is, as an ID token. */
export const OPENID_DESCRIPTION = 'Know who you are: an ID token (signed by this service) with your user id.';

const describe = (scope: string) => (scope === 'openid' ? OPENID_DESCRIPTION : OAUTH_SCOPES[scope as OAuthScope]);

export type ConsentView = {
  action: string;
  appName: string;
  clientId: string;
  email: string;
  /**
   * What the app gets if allowed; `onlyIn`: the organizations (names) where the person's role
   * lets them grant it, when that is not all of theirs.
   */
  scopes: Array<{ scope: string; onlyIn: string[] | null }>;
  /** Asked for, but the person's role grants it in none of their organizations. */
  refused: string[];
  organizations: Array<{ id: string; name: string }>;
  currentOrganizationId: string | null;
  csrfToken: string;
  redirectHost: string;
};

export function renderConsentPage(view: ConsentView): string {
  const scopes = view.scopes
    .map(
      ({ scope, onlyIn }) =>
        `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(describe(scope))}${onlyIn ? ` <em class="note">Only in the organizations you own: ${escapeHtml(onlyIn.join(', '))}.</em>` : ''}</li>`,
    )
    .join('');
  const refused = view.refused.length
    ? `<p>It also asks for the following, which you cannot grant: they need an owner of the organization.</p>
<ul id="refused-scopes">${view.refused.map((s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(describe(s))}</li>`).join('')}</ul>`
    : '';
  const none = view.scopes.length === 0 ? '<li>Nothing you may grant.</li>' : '';
  const options = view.organizations
    .map((o) => `<option value="${escapeHtml(o.id)}"${o.id === view.currentOrganizationId ? ' selected' : ''}>${escapeHtml(o.name)}</option>`)
    .join('');
  return page(
    `Allow ${view.appName}?`,
    `<h1>Allow <span id="app-name">${escapeHtml(view.appName)}</span> to access your organization?</h1>
<p>Signed in as <strong>${escapeHtml(view.email)}</strong>. The app <strong>${escapeHtml(view.appName)}</strong> (<code>${escapeHtml(view.clientId)}</code>) asks to:</p>
<ul id="scopes">${scopes}${none}</ul>
${refused}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<label for="organization">In the organization</label>
<select id="organization" name="organization_id" required>${options}</select>
<p class="note">After you answer you go back to <strong>${escapeHtml(view.redirectHost)}</strong>. You can disconnect the app at any time; its access ends at once.</p>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

export function renderMessagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
