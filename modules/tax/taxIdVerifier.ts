import type { ParsedTaxId } from './domain/taxIds.ts';
import { sendRequest } from '../../platform/outbound/index.ts';

/**
 * Whether a well-formed VAT number exists, asked of whoever can tell. `invalid`: the issuing
 * country says it does not exist; `unavailable`: nobody answered, and the sale goes on.
 */
export type TaxIdVerification = 'verified' | 'unverified' | 'unavailable' | 'invalid';

export type TaxIdVerifier = { name: string; verify(taxId: ParsedTaxId): Promise<TaxIdVerification> };

/** The default: the format was checked, nothing more is known. */
export const formatOnlyVerifier: TaxIdVerifier = { name: 'format', verify: async () => 'unverified' };

export type ViesOptions = {
  /** VIES's REST API root, `https://ec.europa.eu/taxation_customs/vies/rest-api`. */
  baseUrl: string;
  timeoutMs: number;
  /** Hosts reachable even when private (tests on loopback). */
  allowHosts: readonly string[];
};

/** EU VAT numbers as VIES knows them, through the guarded outbound client; other countries' stay `unverified`. */
export function viesVerifier(options: ViesOptions): TaxIdVerifier {
  return {
    name: 'vies',
    async verify(taxId) {
      if (taxId.type !== 'eu_vat') return 'unverified';
      const prefix = taxId.country === 'GR' ? 'EL' : taxId.country;
      const url = `${options.baseUrl.replace(/\/+$/, '')}/ms/${prefix}/vat/${encodeURIComponent(taxId.number)}`;
      const result = await sendRequest(
        { url, method: 'GET', payload: '', headers: { accept: 'application/json' } },
        { allowHosts: options.allowHosts, timeoutMs: options.timeoutMs, connectTimeoutMs: Math.min(options.timeoutMs, 5_000), signal: AbortSignal.timeout(options.timeoutMs + 1_000), responseHeaders: false },
      );
      if (result.status_code !== 200) return 'unavailable';
      let answer: { isValid?: unknown; userError?: unknown };
      try {
        answer = JSON.parse(result.response_body) as typeof answer;
      } catch {
        return 'unavailable';
      }
      // VIES answers 200 with userError MS_UNAVAILABLE, TIMEOUT, … when a member state is down.
      if (answer.isValid === true) return 'verified';
      if (answer.isValid === false && answer.userError === 'INVALID') return 'invalid';
      return 'unavailable';
    },
  };
}
