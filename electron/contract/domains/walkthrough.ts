/** `walkthrough.*` methods and events: the guided onboarding walkthrough (issue 6). */
export const walkthroughMethods = {} as const;
export const walkthroughEvents = {} as const;
