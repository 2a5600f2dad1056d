const monthly = (name: string, display_name: string, amount: number) =>
  ({ name, display_name, description: 'Billed every month.', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount }] });
const oneTime = (name: string, display_name: string, amount: number) =>
  ({ name, display_name, type: 'one_time', renew_interval: null, invoice_interval: 'P1D', currency_code: 'EUR', charges: [{ type: 'flat', amount }] });

/** The demo catalog `commerce demo` imports: three products of one family and two digital goods, keyed so a re-run changes nothing. */
export const demoCatalog = {
  families: [{ lookup_key: 'saas', name: 'SaaS subscriptions' }],
  products: [
    {
      key: 'starter',
      name: 'starter',
      display_name: 'Starter',
      description: 'For individuals getting started.',
      family: 'saas',
      published: true,
      features: [
        { id: 'seats', name: 'Seats', description: 'Team members who can sign in.', value: 1 },
        { id: 'support', name: 'Support', description: null, value: 'community' },
      ],
      twins: [{ provider: 'stripe', external_id: 'prod_demo_starter' }],
      plans: [monthly('starter-monthly', 'Starter monthly', 900)],
    },
    {
      key: 'pro',
      name: 'pro',
      display_name: 'Pro',
      description: 'For growing teams.',
      family: 'saas',
      published: true,
      features: [
        { id: 'seats', name: 'Seats', description: 'Team members who can sign in.', value: 10 },
        { id: 'support', name: 'Support', description: null, value: 'email' },
        { id: 'sso', name: 'Single sign-on', description: null, value: false },
      ],
      twins: [{ provider: 'stripe', external_id: 'prod_demo_pro' }],
      plans: [
        monthly('pro-monthly', 'Pro monthly', 2900),
        {
          name: 'pro-yearly',
          display_name: 'Pro yearly',
          description: 'Billed every year: two months free.',
          renew_interval: 'P1Y',
          currency_code: 'EUR',
          charges: [{ amount: 29000 }],
        },
      ],
    },
    {
      key: 'lifetime',
      name: 'lifetime',
      display_name: 'Lifetime licence',
      description: 'Pay once, use forever.',
      family: 'saas',
      published: true,
      features: [{ id: 'seats', name: 'Seats', description: null, value: 3 }],
      twins: [],
      plans: [
        {
          name: 'lifetime',
          display_name: 'Lifetime',
          description: 'One payment.',
          type: 'one_time',
          renew_interval: null,
          invoice_interval: 'P1D',
          currency_code: 'USD',
          charges: [{ amount: 19900 }],
        },
      ],
    },
    // The digital goods (demoBenefits.ts); the zine is examples/first-sale.json's, field for field.
    {
      key: 'zine',
      name: 'zine',
      display_name: 'Night photography zine',
      description: 'A 40-page PDF.',
      published: true,
      plans: [oneTime('pdf', 'PDF edition', 900)],
    },
    {
      key: 'darkroom',
      name: 'darkroom',
      display_name: 'Darkroom',
      description: 'A desktop app for editing night photographs: one license, three computers.',
      published: true,
      plans: [oneTime('license', 'Darkroom license', 2900)],
    },
  ],
};
