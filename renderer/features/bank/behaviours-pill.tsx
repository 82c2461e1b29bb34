import { activeBehaviours, useBankStatus } from '../../data/bank';

/** Header pill: the bank endpoints misbehave on purpose somewhere; links to the Bank page. */
export function BehavioursPill() {
  const routes = activeBehaviours(useBankStatus().data);
  if (routes.length === 0) return null;
  return (
    <a
      href="#/bank"
      className="behaviours-pill"
      data-testid="behaviours-pill"
      title={`Deliberate misbehaviour on ${routes.join(', ')}: the bank endpoints answer wrongly on purpose. Bank page to switch off.`}
    >
      <span aria-hidden="true">!</span> behaviours ON ({routes.length})
    </a>
  );
}
