/** On the first SIGTERM or SIGINT, runs `stop`, then exits 0 (1 if it failed): a clean stop only at a safe point. */
export function exitOnSignal(stop: (signal: string) => Promise<void>): void {
  const onSignal = (signal: string) => {
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
}
