export {
  ANSWER_ROUTES,
  answerOfExchange,
  judgeAnswer,
  type Answer,
  type AnswerRoute,
  type AnswerVerdict,
  type JudgeRequest,
  type TokenOutcome,
} from './judge';
export { codePoints, EXTERNAL_ID_MAX_CODE_POINTS } from './fields';
export { judgeNotificationAnswer } from './notification';
export { ANSWER_TITLES, answerCheck, type AnswerCheckId } from './titles';
