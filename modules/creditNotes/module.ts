import { creditNoteProjection } from './creditNoteProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const creditNotesModule: FeatureModule = {
  name: 'creditNotes',
  projections: [creditNoteProjection],
  routes: async () => [(await import('./http/creditNoteRoutes.ts')).creditNoteRoutes],
  manageRoutes: async () => [(await import('./http/creditNoteRoutes.ts')).creditNoteManageRoutes],
  jobs: async () => [(await import('./jobs/creditNoteIssuer.ts')).creditNoteIssuerJob],
  importSections: [],
};
