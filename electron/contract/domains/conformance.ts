/** `conformance.*` methods and events: the bank callback conformance suite (issue 7). */
export const conformanceMethods = {} as const;
export const conformanceEvents = {} as const;
