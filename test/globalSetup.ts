/** vitest global setup: nothing to start for the embedded profile. */
export default function setup(): void {}
