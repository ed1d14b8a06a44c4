/**
 * An identifier (a model, instance or repository name) that may wrap only where it has a seam: after an
 * underscore, slash, dot or hyphen. A narrow card then shows "model_ / repository", never
 * "model_re / pository" (CSS alone offers only "anywhere" or "nowhere" inside a word).
 */
import { Fragment } from 'react';

export function Identifier(props: { text: string }) {
  const parts = props.text.split(/(?<=[_/.-])/);
  return <>{parts.map((p, i) => <Fragment key={i}>{i > 0 && <wbr />}{p}</Fragment>)}</>;
}
