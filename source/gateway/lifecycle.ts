/** A part of the gateway with an ordered start and stop. */
export interface Component {
  name: string;
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/**
 * Starts components in order and stops them in reverse. A failed start stops what already
 * started before the error goes on, so nothing is left half-running.
 */
export function createLifecycle(components: readonly Component[], onStopError: (name: string, error: unknown) => void) {
  const started: Component[] = [];
  return {
    async start(): Promise<void> {
      for (const component of components) {
        try {
          await component.start();
        } catch (error) {
          await this.stop();
          throw error;
        }
        started.push(component);
      }
    },
    async stop(): Promise<void> {
      while (started.length > 0) {
        const component = started.pop()!;
        try {
          await component.stop();
        } catch (error) {
          onStopError(component.name, error);
        }
      }
    },
  };
}
