import { useSyncExternalStore } from 'react';
import type { ConsoleModel, ConsoleState } from '../console-model.js';

export function useConsoleState(model: ConsoleModel): ConsoleState {
  return useSyncExternalStore(model.subscribe, model.getState);
}
