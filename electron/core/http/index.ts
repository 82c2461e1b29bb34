/** HTTP building blocks every listener and client of the core shares: bodies, bounds, the 1 s budget, origins, replies. */
export { discardBody, isJsonContentType, readBody, readJsonBody } from './body';
export { BUDGET_CHECK_ID, budgetDetail, CALLBACK_BUDGET_MS, overBudget } from './budget';
export { exchange, type ExchangeResult } from './exchange';
export { HttpError } from './http-error';
export { ORIGIN_CHECK_ID, originRefusal, refusedRequest, type RefusedRequest } from './origin';
export { type ClientErrorInfo, type RunningServer, startServer, type TlsMaterial } from './listener';
export { sendJson } from './respond';
export { boundMessage, headerSectionBytes } from './bounds';
export {
  emptyReply,
  errorReply,
  jsonReply,
  maskedKey,
  recordedText,
  type Reply,
  sendReply,
  wireHeaders,
} from './reply';
export {
  type Method,
  type Route,
  type RouteContext,
  type RouteMatch,
  type RoutePattern,
  Router,
  type RouterOptions,
  RouteTable,
} from './router';
