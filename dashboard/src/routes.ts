/**
 * Every page of the dashboard: its path, its place in the navigation, its component. To add a
 * page, write `pages/<Name>Page.tsx` and add it here (docs/dashboard.md).
 */
import type { ComponentType } from 'preact';
import { AutomationPage, SequencePage } from './pages/AutomationPage.tsx';
import { CatalogPage, ProductPage } from './pages/CatalogPage.tsx';
import { DevelopersPage } from './pages/DevelopersPage.tsx';
import { EventLogPage } from './pages/EventLogPage.tsx';
import { HomePage } from './pages/HomePage.tsx';
import { OfferPage, OffersPage } from './pages/OffersPage.tsx';
import { PromoPage, PromosPage } from './pages/PromosPage.tsx';
import { SalesPage } from './pages/SalesPage.tsx';
import { SessionPage } from './pages/SessionPage.tsx';
import { TaxReportPage } from './pages/TaxReportPage.tsx';
import { SettingsPage } from './pages/SettingsPage.tsx';
import { TriggerPage, WorkflowPage } from './pages/AutomationRunPages.tsx';
import { PaymentsPage } from './pages/PaymentsPage.tsx';
import { TaxPage } from './pages/TaxPage.tsx';
import { ConnectedAppsPage, OAuthAppsPage } from './pages/OAuthAppsPage.tsx';
import { NewWebhookPage, WebhookPage, WebhooksPage } from './pages/WebhooksPage.tsx';
import { SubscriptionPage } from './pages/subscriptions/SubscriptionPage.tsx';
import { SubscriptionsPage } from './pages/subscriptions/SubscriptionsPage.tsx';
import { TestClocksPage } from './pages/subscriptions/TestClocksPage.tsx';
import { CustomerPage } from './pages/customers/CustomerPage.tsx';
import { CustomersPage } from './pages/customers/CustomersPage.tsx';
import { CouponPage, CouponsPage, NewCouponPage } from './pages/CouponsPage.tsx';
import { LicenseKeyPage, LicenseKeysPage } from './pages/benefits/LicenseKeysPage.tsx';

/** A page gets its path's parameters (`:id` → params.id). */
export type PageProps = { params: Record<string, string> };

export type Route = {
  /** Under /dashboard; `:name` matches one path segment. */
  path: string;
  page: ComponentType<PageProps>;
  /** The navigation entry this page belongs to (a detail page lights its list's entry). */
  nav: NavKey;
};

export type NavKey = 'home' | 'catalog' | 'offers' | 'sales' | 'customers' | 'subscriptions' | 'promos' | 'coupons' | 'license-keys' | 'automation' | 'developers' | 'settings';

/** The navigation, in order. */
export const NAV: { key: NavKey; label: string; href: string }[] = [
  { key: 'home', label: 'Home', href: '/dashboard' },
  { key: 'catalog', label: 'Catalog', href: '/dashboard/catalog' },
  { key: 'offers', label: 'Offers', href: '/dashboard/offers' },
  { key: 'sales', label: 'Sales', href: '/dashboard/sales' },
  { key: 'customers', label: 'Customers', href: '/dashboard/customers' },
  { key: 'subscriptions', label: 'Subscriptions', href: '/dashboard/subscriptions' },
  { key: 'promos', label: 'Promos', href: '/dashboard/promos' },
  { key: 'coupons', label: 'Coupons', href: '/dashboard/coupons' },
  { key: 'license-keys', label: 'License keys', href: '/dashboard/license-keys' },
  { key: 'automation', label: 'Automation', href: '/dashboard/automation' },
  { key: 'developers', label: 'Developers', href: '/dashboard/developers' },
  { key: 'settings', label: 'Settings', href: '/dashboard/settings' },
];

/** First match wins: put `/x/new` before `/x/:id`. */
export const ROUTES: Route[] = [
  { path: '/dashboard', page: HomePage, nav: 'home' },
  { path: '/dashboard/catalog', page: CatalogPage, nav: 'catalog' },
  { path: '/dashboard/offers', page: OffersPage, nav: 'offers' },
  { path: '/dashboard/sales', page: SalesPage, nav: 'sales' },
  { path: '/dashboard/sales/tax', page: TaxReportPage, nav: 'sales' },
  { path: '/dashboard/sales/:id', page: SessionPage, nav: 'sales' },
  { path: '/dashboard/subscriptions', page: SubscriptionsPage, nav: 'subscriptions' },
  { path: '/dashboard/subscriptions/:id', page: SubscriptionPage, nav: 'subscriptions' },
  { path: '/dashboard/promos', page: PromosPage, nav: 'promos' },
  { path: '/dashboard/automation', page: AutomationPage, nav: 'automation' },
  { path: '/dashboard/developers', page: DevelopersPage, nav: 'developers' },
  { path: '/dashboard/developers/events', page: EventLogPage, nav: 'developers' },
  { path: '/dashboard/developers/webhooks', page: WebhooksPage, nav: 'developers' },
  { path: '/dashboard/developers/oauth-apps', page: OAuthAppsPage, nav: 'developers' },
  { path: '/dashboard/developers/test-clocks', page: TestClocksPage, nav: 'developers' },
  { path: '/dashboard/developers/webhooks/new', page: NewWebhookPage, nav: 'developers' },
  { path: '/dashboard/developers/webhooks/:id', page: WebhookPage, nav: 'developers' },
  { path: '/dashboard/settings', page: SettingsPage, nav: 'settings' },
  { path: '/dashboard/settings/payments', page: PaymentsPage, nav: 'settings' },
  { path: '/dashboard/settings/tax', page: TaxPage, nav: 'settings' },
  { path: '/dashboard/settings/connected-apps', page: ConnectedAppsPage, nav: 'settings' },
  { path: '/dashboard/catalog/new', page: ProductPage, nav: 'catalog' },
  { path: '/dashboard/catalog/:id', page: ProductPage, nav: 'catalog' },
  { path: '/dashboard/offers/new', page: OfferPage, nav: 'offers' },
  { path: '/dashboard/offers/:ref', page: OfferPage, nav: 'offers' },
  { path: '/dashboard/promos/new', page: PromoPage, nav: 'promos' },
  { path: '/dashboard/promos/:slug', page: PromoPage, nav: 'promos' },
  { path: '/dashboard/automation/sequences/new', page: SequencePage, nav: 'automation' },
  { path: '/dashboard/automation/sequences/:id', page: SequencePage, nav: 'automation' },
  { path: '/dashboard/automation/triggers/:id', page: TriggerPage, nav: 'automation' },
  { path: '/dashboard/automation/workflows/:id', page: WorkflowPage, nav: 'automation' },
  { path: '/dashboard/customers', page: CustomersPage, nav: 'customers' },
  { path: '/dashboard/customers/:id', page: CustomerPage, nav: 'customers' },
  { path: '/dashboard/coupons', page: CouponsPage, nav: 'coupons' },
  { path: '/dashboard/coupons/new', page: NewCouponPage, nav: 'coupons' },
  { path: '/dashboard/coupons/:id', page: CouponPage, nav: 'coupons' },
  { path: '/dashboard/license-keys', page: LicenseKeysPage, nav: 'license-keys' },
  { path: '/dashboard/license-keys/:id', page: LicenseKeyPage, nav: 'license-keys' },
];
