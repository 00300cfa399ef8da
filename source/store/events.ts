import type { StoreFault } from './store-fault.js';

/** The store's events (joined into GatewayEventMap): state.db stopped, or started again, taking writes. */
export interface StoreEventMap {
  'store.faulted': [{ fault: StoreFault }];
  'store.recovered': [{ kind: StoreFault['kind']; faultedForMs: number; atMs: number }];
}
