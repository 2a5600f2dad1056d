/**
 * On the first SIGTERM or SIGINT, runs `stop` and exits 0 once it has finished (1 if it failed),
 * so supervisors see a clean stop only when work really stopped at a safe point.
 */
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
