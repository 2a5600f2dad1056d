export { type Config } from './config.ts';
export { type FeatureModule } from './featureModule.ts';
export { intervalJob } from './intervalJob.ts';
export { type BackgroundJob, type Services } from './services.ts';
