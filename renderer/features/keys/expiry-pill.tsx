import { useActiveEnvironment } from '../../data/environments';
import { expiryLevel, expiryWords, keysNeedingRotation } from './expiry';
import { useKeys } from '../../data/keys';

/**
 * Header pill: the active key (of the active environment, or any key marked active) expires
 * within 30 days, or has expired. It links to the Keys page, where rotation starts.
 */
export function ExpiryPill() {
  const keys = useKeys().data ?? [];
  const env = useActiveEnvironment();
  const urgent = keysNeedingRotation(keys, env);
  const first = urgent[0];
  if (!first) return null;
  const level = expiryLevel(first.expires_in_days);
  const more = urgent.length - 1;
  const days = first.expires_in_days ?? 0;
  const words =
    level === 'expired'
      ? `Key ${first.kid} ${expiryWords(days)}`
      : days === 0
        ? `Key ${first.kid} expires today`
        : `Key ${first.kid} expires ${expiryWords(days)}`;
  return (
    <a
      href="#/keys"
      className={`expiry-pill expiry-pill-${level}`}
      data-testid="key-expiry-pill"
      data-level={level}
      data-kid={first.kid}
      title={`${words} (${first.expires ?? ''}). Rotate it before the service refuses its tokens: Keys page, then Service → Rotation.${
        more > 0 ? ` ${more} more key${more === 1 ? '' : 's'} need attention.` : ''
      }`}
    >
      <span className="expiry-pill-icon" aria-hidden="true">
        {level === 'expired' ? '✗' : '!'}
      </span>
      {words}
      {more > 0 ? <span className="expiry-pill-more"> +{more}</span> : null}
    </a>
  );
}
