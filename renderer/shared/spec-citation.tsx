import { citationParts, referenceHref } from './spec-sections';

/** "spec 4.4 #2, 2.4" with each section a link into the in-app reference (#/reference/4.4). */
export function SpecCitation({ spec, className }: { spec: string; className?: string }) {
  const parts = citationParts(spec);
  return (
    <span className={className} data-testid="spec-citation">
      spec{' '}
      {parts.map((p, i) => (
        <span key={`${p.text}-${i}`}>
          {i > 0 ? ', ' : ''}
          {p.id ? (
            <a href={referenceHref(p.id)} data-section={p.id} title={`Open section ${p.id} of the interface`}>
              {p.text}
            </a>
          ) : (
            p.text
          )}
        </span>
      ))}
    </span>
  );
}
