/** The demo offers `commerce demo` imports beside the demo catalog: Pro monthly (the first: the SDK example's), the zine, the app. */
export const demoOffers = [
  {
    slug: 'demo-pro-monthly',
    name: 'Pro monthly',
    product: 'pro',
    plan: 'pro-monthly',
    published: true,
    theme: {
      primary_color: '#4f46e5',
      background_color: '#ffffff',
      text_color: '#111827',
      font_family: 'Inter, system-ui, sans-serif',
      logo_url: null,
      button_text: 'Start Pro',
    },
    pages: [
      {
        id: 'checkout',
        type: 'checkout',
        title: 'Upgrade to Pro',
        blocks: [
          { type: 'heading', text: 'Everything your team needs' },
          { type: 'features', items: ['10 seats', 'Email support', 'Cancel any time'] },
          { type: 'price' },
        ],
      },
      { id: 'thanks', type: 'thank_you', title: 'Welcome to Pro', blocks: [{ type: 'text', text: 'Your receipt is on its way.' }] },
    ],
  },
  // The zine's offer of examples/first-sale.json, as it is there.
  {
    slug: 'zine-pdf',
    name: 'Night photography zine',
    product: 'zine',
    plan: 'pdf',
    published: true,
    theme: { primary_color: '#0f766e', button_text: 'Buy the zine' },
    pages: [
      {
        id: 'checkout',
        type: 'checkout',
        title: 'Night photography zine',
        blocks: [
          { type: 'heading', text: 'Forty pages of long exposures' },
          { type: 'features', items: ['PDF, 40 pages', 'Download at once'] },
          { type: 'price' },
        ],
      },
      { id: 'thanks', type: 'thank_you', title: 'Thank you', blocks: [{ type: 'text', text: 'Your zine is on its way.' }] },
    ],
  },
  {
    slug: 'darkroom-app',
    name: 'Darkroom',
    product: 'darkroom',
    plan: 'license',
    published: true,
    theme: { primary_color: '#1e293b', button_text: 'Buy Darkroom' },
    pages: [
      {
        id: 'checkout',
        type: 'checkout',
        title: 'Darkroom for desktop',
        blocks: [
          { type: 'features', items: ['One license key', 'Activate on up to 3 computers', 'Free updates'] },
          { type: 'price' },
        ],
      },
      { id: 'thanks', type: 'thank_you', title: 'Thank you', blocks: [{ type: 'text', text: 'Your license key is below.' }] },
    ],
  },
];
