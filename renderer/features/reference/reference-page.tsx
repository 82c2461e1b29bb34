import { useEffect, useRef } from 'react';
import { useHash } from '../../app/navigation';
import { PageHead } from '../../shared/page-head';
import { SPEC_SECTIONS, referenceHref, sectionFor } from './spec-sections';
import './reference.css';

/** The section in `#/reference/4.4`, or null. */
function sectionFromHash(hash: string): string | null {
  const rest = hash.replace(/^#\/?reference\/?/, '');
  return rest ? decodeURIComponent(rest) : null;
}

/**
 * The service interface, written for the console (issue 13 item 4): every section with its
 * rules in short and what the console does about them. Spec citations elsewhere open the cited
 * section here (#/reference/4.4), scrolled into view and focused.
 */
export function ReferencePage() {
  const wanted = sectionFromHash(useHash());
  const selected = wanted ? sectionFor(wanted) : null;
  const refs = useRef(new Map<string, HTMLElement>());
  useEffect(() => {
    if (!selected) return;
    const el = refs.current.get(selected.id);
    el?.scrollIntoView?.({ block: 'start' });
    el?.focus();
  }, [selected]);
  return (
    <div className="reference" data-testid="reference-page" data-section={selected?.id ?? ''}>
      <PageHead title="Interface reference">
        The Authentication and Notification Interface of the service, section by section: what it requires,
        and what the console does about it.
      </PageHead>
      {wanted && !selected ? (
        <p className="banner banner-warn" role="status" data-testid="reference-unknown">
          The interface has no section {wanted}.
        </p>
      ) : null}
      <nav className="reference-toc" aria-label="Sections">
        {SPEC_SECTIONS.map((s) => (
          <a key={s.id} href={referenceHref(s.id)} aria-current={s.id === selected?.id ? 'true' : undefined}>
            {s.id}
          </a>
        ))}
      </nav>
      {SPEC_SECTIONS.map((s) => (
        <section
          key={s.id}
          id={`spec-${s.id}`}
          className={`panel reference-section ${s.id === selected?.id ? 'is-selected' : ''}`}
          aria-labelledby={`spec-title-${s.id}`}
          tabIndex={-1}
          ref={(el) => {
            if (el) refs.current.set(s.id, el);
            else refs.current.delete(s.id);
          }}
          data-testid={`reference-section-${s.id}`}
        >
          <h2 className="panel-title" id={`spec-title-${s.id}`}>
            {s.id} {s.title}
          </h2>
          <ul>
            {s.rules.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
          <p className="reference-console">
            <strong>In the console: </strong>
            {s.console}
          </p>
        </section>
      ))}
    </div>
  );
}
