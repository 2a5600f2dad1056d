import { escapeHtml } from '../../../../platform/http/index.ts';

/** The queueing stub sellers paste before the async <script src=".../sdk.js">: calls made early are kept. */
export const SDK_STUB =
  'window.sdk=window.sdk||(function(){var s={q:[]};["present","mount","identify","reset","ready","from","promo","addGate","gate"].forEach(function(m){s[m]=function(){var a=arguments;return new Promise(function(r,j){s.q.push([m,a,r,j])})}});return s})();';

/**
 * A storefront page that uses every SDK method and data-service-* attribute. It is the example a
 * seller copies from and the page the browser tests drive. `?offer=…&promo=…&second=…`.
 */
/** What `commerce demo` creates, so `/examples/sdk` works with no query after running it. */
export const EXAMPLE_DEFAULTS = { offer: 'demo-pro-monthly', promo: 'demo-launch' } as const;

export function renderExamplePage(o: { nonce: string; offer?: string; promo?: string; second?: string }): string {
  const offer = escapeHtml(o.offer ?? EXAMPLE_DEFAULTS.offer);
  const second = escapeHtml(o.second ?? o.offer ?? EXAMPLE_DEFAULTS.offer);
  const promo = escapeHtml(o.promo ?? EXAMPLE_DEFAULTS.promo);
  const code = (s: string) => `<pre><code>${escapeHtml(s.trim())}</code></pre>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>SDK example store</title>
<style nonce="${o.nonce}">
body{font:15px/1.55 system-ui,sans-serif;color:#0f172a;background:#f8fafc;margin:0}
.wrap{max-width:920px;margin:0 auto;padding:28px 20px 80px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px}
.card h2{margin-top:0}.card{background:#fff;border:1px solid #e2e8f0;border-radius:12px;padding:18px 20px;margin:14px 0}
.row{display:flex;flex-wrap:wrap;gap:10px;align-items:center}
button{font:inherit;font-weight:600;border-radius:9px;border:1px solid #cbd5e1;background:#fff;padding:9px 14px;cursor:pointer}
button.primary{background:#0f172a;color:#fff;border-color:#0f172a}
pre{background:#0f172a;color:#e2e8f0;border-radius:10px;padding:12px 14px;overflow:auto;font-size:13px}
#log{font:12px ui-monospace,monospace;white-space:pre-wrap;background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:10px;min-height:40px}
</style>
<script nonce="${o.nonce}">${SDK_STUB}</script>
<script src="/sdk.js" async></script>
<script nonce="${o.nonce}">
  // Queued before the SDK has loaded: runs in order once it has.
  sdk.identify('buyer@example.com');
  window.examples = { flows: [], log: [] };
  sdk.ready(function (s) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { wire(s); });
    else wire(s);
  });
  function wire(s) {
    window.examples.readyAt = Date.now();
    s.addGate('pro-feature', '${offer}', function () { return localStorage.getItem('has-pro') === 'yes'; }, { mode: 'test' });
    document.getElementById('gate').addEventListener('click', function () {
      s.gate('pro-feature').then(function (outcome) { log('gate ' + JSON.stringify(outcome.passed)); if (outcome.passed) localStorage.setItem('has-pro', 'yes'); });
    });
    document.getElementById('present-js').addEventListener('click', async function () {
      var flow = s.present('${offer}', { frame: 'modal', size: 'md', mode: 'test', metadata: { source: 'example' } });
      for await (var ev of flow.events) log('event ' + ev.type);
      log('result ' + (await flow).status);
    });
    s.promo('${promo}').then(function (p) { log('promo ' + p.state); }, function () { log('promo unavailable'); });
  }
  function log(line) { window.examples.log.push(line); var el = document.getElementById('log'); if (el) el.textContent += line + '\\n'; }
</script>
</head><body><div class="wrap">
<h1>Example store</h1>
<p>Every method and attribute of the browser SDK on one page. Offer <code>${offer}</code>, promo <code>${promo}</code>.</p>

<div class="card"><h2>1. Embed</h2>
${code(`<script>${SDK_STUB}</script>\n<script src="https://YOUR-SERVICE/sdk.js" async></script>`)}</div>

<div class="card"><h2>2. Buttons (data-service-present)</h2>
<div class="row">
<button class="primary" id="buy-modal" data-service-present="${offer}" data-service-frame="modal" data-service-size="md" data-service-mode="test">Buy · modal</button>
<button id="buy-slideout" data-service-present="${offer}" data-service-frame="slideout" data-service-size="md" data-service-mode="test">Buy · slideout</button>
<button id="buy-sheet" data-service-present="${offer}" data-service-frame="bottom sheet" data-service-size="lg" data-service-mode="test">Buy · bottom sheet</button>
<button id="buy-preview" data-service-present="${offer}" data-service-mode="preview">Preview</button>
</div>
${code(`<button data-service-present="${offer}" data-service-frame="slideout" data-service-size="md" data-service-mode="test">Buy</button>`)}</div>

<div class="card"><h2>3. Promo (data-service-promo, data-service-apply-promo)</h2>
<div id="promo-widget" data-service-promo="${promo}"></div>
<div data-service-apply-promo="${promo}" class="row"><button id="buy-promo" data-service-present="${offer}" data-service-mode="test">Buy with the promo</button></div>
${code(`<div data-service-promo="${promo}"></div>\n<div data-service-apply-promo="${promo}"><button data-service-present="${offer}">Buy</button></div>`)}</div>

<div class="card"><h2>4. JavaScript (present, events, gate)</h2>
<div class="row"><button id="present-js">sdk.present() with events</button><button id="gate">sdk.gate('pro-feature')</button></div>
${code(`
const flow = sdk.present('${offer}', { frame: 'modal', size: 'md', mode: 'test', metadata: { source: 'example' } });
for await (const ev of flow.events) console.log(ev.type);   // start, purchase, complete | cancel
const result = await flow;                                   // { status: 'complete', session } | cancel | closed
sdk.addGate('pro-feature', '${offer}', () => localStorage.getItem('has-pro') === 'yes');
const outcome = await sdk.gate('pro-feature');                // { passed, presented, result? }
const promo = await sdk.promo('${promo}');                    // { state, current_tier, countdown, … }
sdk.identify('buyer@example.com'); sdk.reset();
sdk.from(document.querySelector('#inline'));                  // the mount's FlowHandle
`)}
<div id="log" aria-live="polite"></div></div>

<div class="card"><h2>5. Inline (data-service-mount, data-service-frame="embedded")</h2>
<div id="inline" data-service-mount="${second}" data-service-mode="test" data-service-size="md"></div>
${code(`<div data-service-mount="${second}" data-service-mode="test"></div>\n// or: sdk.mount('#inline', '${second}', { mode: 'test' })`)}</div>
</div></body></html>`;
}
