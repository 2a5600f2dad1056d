/** The demo offer `commerce demo` imports beside the demo catalog: Pro monthly, published. */
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
];
