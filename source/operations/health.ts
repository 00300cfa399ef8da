import { faultDescription } from '../store/store-fault.js';

/** What a store fault in `/health` means, in the words the log uses: for front ends (the console's header). */
export const storeFaultText = faultDescription;
